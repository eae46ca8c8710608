// CNRT's per-op device times from Cambricon's CNPAPI activity interface (libcnpapi.so, records as
// runtimes/cnrt/cnpapi_activity.hpp), as CUPTI-style tools use it: prof's correlation id is pushed
// as an external id (CUSTOM0) around each timed call, the library's EXTERNAL_CORRELATION record
// binds its correlation id to prof's, and its KERNEL / MEMCPY / MEMCPY_PTOP / MEMSET records carry
// the device times. Nothing here runs on the application's thread but the push and pop (and, in a
// blocking call, whatever the library does there: it may ask for a buffer).
//
// Assumed, not stated by the facts: an op's EXTERNAL_CORRELATION record is delivered no later than
// its own record (CUPTI writes it as the API call returns, before the work ends; the simulated
// library writes it just before the op's record): an op record whose binding is not known yet is
// not reported, and its op counts as a timing drop. Bindings never used (a call that enqueued no
// reported op) are dropped once kMaxBindings are held.
#include <dlfcn.h>
#include <time.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "interpose/adapters/cnrt_adapter.hpp"
#include "interpose/dl_hooks.hpp"
#include "runtimes/cnrt/cnpapi_activity.hpp"

namespace prof::interpose::cnrt_timing {
namespace {

constexpr cnpapiActivityExternalCorrelationType kExternalType =
    CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0;
constexpr size_t kBufferBytes = 256 * 1024;
constexpr size_t kPooledBuffers = 8;
constexpr size_t kMaxBindings = 1u << 16;

struct Cnpapi {
  cnpapiActivityGetNextRecord_t get_next_record;
  cnpapiActivityFlushAll_t flush_all;
  cnpapiActivityPushExternalCorrelationId_t push;
  cnpapiActivityPopExternalCorrelationId_t pop;
};
// Written once by activity_open before any callback is registered; read-only after.
Cnpapi g_cnpapi{};
// CNPAPI's clock minus CLOCK_MONOTONIC (activity_open), added back to every record's times.
int64_t g_clock_offset_ns = 0;

std::mutex g_mutex;  // the pool and the bindings: the library's threads and the harvester
uint64_t* g_pool[kPooledBuffers];
size_t g_pooled = 0;
std::unordered_map<uint64_t, uint64_t> g_external_of;  // CNPAPI's correlation id -> prof's

uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

void buffer_requested(uint64_t** buffer, size_t* size, size_t* max_records) noexcept {
  uint64_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_pooled != 0) b = g_pool[--g_pooled];
  }
  if (b == nullptr) b = static_cast<uint64_t*>(std::malloc(kBufferBytes));
  *buffer = b;
  *size = b != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// A record of type T at `r`, if the whole struct lies inside the valid bytes (a library whose
// records are smaller than prof's facts say is read no further than its buffer).
template <typename T>
const T* as(const cnpapiActivity* r, const char* end) noexcept {
  return reinterpret_cast<const char*>(r) + sizeof(T) <= end ? reinterpret_cast<const T*>(r)
                                                             : nullptr;
}

void deliver(uint64_t correlation_id, uint64_t start, uint64_t end) noexcept {
  auto it = g_external_of.find(correlation_id);
  if (it == g_external_of.end()) return;
  const uint64_t external_id = it->second;
  g_external_of.erase(it);
  activity_deliver(RuntimeId::kCnrt, external_id, uint64_t(int64_t(start) - g_clock_offset_ns),
                   uint64_t(int64_t(end) - g_clock_offset_ns));
}

void buffer_completed(uint64_t* buffer, size_t size, size_t valid_size) noexcept {
  if (buffer == nullptr) return;
  const char* base = reinterpret_cast<const char*>(buffer);
  const char* end = base + (valid_size <= size ? valid_size : size);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    cnpapiActivity* r = nullptr;
    const char* last = nullptr;
    // Records only move forward and stay inside the valid bytes, so the walk ends on any library.
    while (g_cnpapi.get_next_record(buffer, valid_size, &r) == CNPAPI_SUCCESS && r != nullptr) {
      const char* at = reinterpret_cast<const char*>(r);
      if (at < base || at <= last || at + sizeof(cnpapiActivity) > end) break;
      last = at;
      switch (r->type) {
        case CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION:
          if (auto* x = as<cnpapiActivityExternalCorrelation>(r, end);
              x && x->external_type == kExternalType) {
            if (g_external_of.size() >= kMaxBindings) g_external_of.clear();
            g_external_of[x->correlation_id] = x->external_id;
          }
          break;
        case CNPAPI_ACTIVITY_TYPE_KERNEL:
          if (auto* k = as<cnpapiActivityKernel>(r, end))
            deliver(k->correlation_id, k->start, k->end);
          break;
        case CNPAPI_ACTIVITY_TYPE_MEMCPY:
          if (auto* m = as<cnpapiActivityMemcpy>(r, end))
            deliver(m->correlation_id, m->start, m->end);
          break;
        case CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP:
          if (auto* m = as<cnpapiActivityMemcpyPtoP>(r, end))
            deliver(m->correlation_id, m->start, m->end);
          break;
        case CNPAPI_ACTIVITY_TYPE_MEMSET:
          if (auto* m = as<cnpapiActivityMemset>(r, end))
            deliver(m->correlation_id, m->start, m->end);
          break;
        default: break;
      }
    }
    if (g_pooled < kPooledBuffers) {
      g_pool[g_pooled++] = buffer;
      return;
    }
  }
  std::free(buffer);
}

// CNPAPI's timestamps are ns on a clock whose base the header does not state (tools calibrate it
// against their own clock). Read between two CLOCK_MONOTONIC readings: a reading inside that
// bracket is CLOCK_MONOTONIC itself (the simulated library's clock, or a driver that uses it), and
// no offset is applied; otherwise the offset is taken at the narrowest bracket's midpoint.
int64_t measure_clock_offset(cnpapiGetTimestamp_t timestamp) noexcept {
  int64_t offset = 0;
  uint64_t narrowest = ~uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = monotonic_ns();
    const uint64_t theirs = timestamp();
    const uint64_t after = monotonic_ns();
    if (theirs >= before && theirs <= after) return 0;
    if (after - before < narrowest) {
      narrowest = after - before;
      offset = int64_t(theirs) - int64_t(before + (after - before) / 2);
    }
  }
  return offset;
}

template <typename Fn>
bool resolve(void* library, const char* name, Fn& fn) noexcept {
  fn = reinterpret_cast<Fn>(real_dlsym(library, name));
  return fn != nullptr;
}

}  // namespace

// On the first timed CNRT call (device_timing.cpp's activity_state), once per process.
bool activity_open() {
  void* library = dlopen("libcnpapi.so", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return false;
  cnpapiInit_t init;
  cnpapiGetTimestamp_t timestamp;
  cnpapiActivityRegisterCallbacks_t register_callbacks;
  cnpapiActivityEnable_t enable;
  Cnpapi c{};
  if (!resolve(library, "cnpapiInit", init) || !resolve(library, "cnpapiGetTimestamp", timestamp) ||
      !resolve(library, "cnpapiActivityRegisterCallbacks", register_callbacks) ||
      !resolve(library, "cnpapiActivityEnable", enable) ||
      !resolve(library, "cnpapiActivityGetNextRecord", c.get_next_record) ||
      !resolve(library, "cnpapiActivityFlushAll", c.flush_all) ||
      !resolve(library, "cnpapiActivityPushExternalCorrelationId", c.push) ||
      !resolve(library, "cnpapiActivityPopExternalCorrelationId", c.pop))
    return false;  // the library stays loaded: unloading a profiling library mid-run is not worth
                   // the risk
  if (init() != CNPAPI_SUCCESS) return false;
  g_cnpapi = c;
  g_clock_offset_ns = measure_clock_offset(timestamp);
  if (register_callbacks(buffer_requested, buffer_completed) != CNPAPI_SUCCESS) return false;
  // The binding first: no op may be recorded before the record that names it.
  for (cnpapiActivityType type :
       {CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION, CNPAPI_ACTIVITY_TYPE_KERNEL,
        CNPAPI_ACTIVITY_TYPE_MEMCPY, CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP, CNPAPI_ACTIVITY_TYPE_MEMSET})
    if (enable(type) != CNPAPI_SUCCESS) return false;
  return true;
}

void activity_push(uint64_t correlation_id) { (void)g_cnpapi.push(kExternalType, correlation_id); }

void activity_pop() {
  uint64_t last_id = 0;
  (void)g_cnpapi.pop(kExternalType, &last_id);
}

void activity_flush() { (void)g_cnpapi.flush_all(); }

}  // namespace prof::interpose::cnrt_timing
