// The simulated libcnpapi.so: Cambricon's activity interface (runtimes/cnrt/cnpapi_activity.hpp)
// over the simulated MLU's per-op reports (sim/activity_subscriber.h). It reaches libcnrt.so's
// model through prof_sim_activity_subscribe, as the real library reaches its driver privately.
//
// The contract, as this library implements it:
// - Each kernel, copy and memset enqueued while some reported type is enabled gets a correlation
//   id (the model's). While the enqueuing thread has external ids pushed, and EXTERNAL_CORRELATION
//   is enabled, its op gets one EXTERNAL_CORRELATION record per pushed type (the top of that type's
//   stack), written just before the op's own record, in the same buffer.
// - An op's KERNEL / MEMCPY / MEMSET record is written once its device times are final. A peer
//   copy is a MEMCPY_PTOP record (the type the header has for them), not a MEMCPY one.
// - Buffers come from the tool's bufferRequested and go back through bufferCompleted when the next
//   records do not fit, or on cnpapiActivityFlushAll (a buffer with records only). Both callbacks
//   run on whichever thread writes or flushes: a stream's worker, the caller of a blocking copy, or
//   the flushing thread; never under the model's lock, and bufferCompleted never under this
//   library's. Records that find no buffer are dropped and counted.
// - Timestamps are CLOCK_MONOTONIC ns (the model's clock); cnpapiGetTimestamp reads the same clock.
#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "runtimes/cnrt/cnpapi_activity.hpp"
#include "sim/activity_subscriber.h"

#define PROF_CNPAPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// The fields a copy's and a memset's records share, from the model's report.
template <typename Record>
void transfer_fields(Record* m, const prof_sim_op_report* r) {
  m->correlation_id = m->runtime_correlation_id = r->correlation_id;
  m->bytes = r->bytes;
  m->start = r->begin_ns;
  m->end = r->end_ns;
  m->device_id = static_cast<uint64_t>(r->device);
  m->queue_id = r->stream;
}

constexpr int kExternalTypes = CNPAPI_EXTERNAL_CORRELATION_TYPE_SIZE;
constexpr int kStackDepth = 32;

// Per thread, per external type: the pushed ids (deeper pushes than kStackDepth are refused).
struct ExternalStacks {
  uint64_t ids[kExternalTypes][kStackDepth];
  int depth[kExternalTypes];
};
thread_local ExternalStacks t_stacks;

// The external ids an op was enqueued under, from on_enqueue (the app's thread, under the model's
// lock: no allocation, no lock) to on_done. A slot is claimed by compare-exchange from 0 to kBusy,
// filled, then published with the op's id (release pairs with on_done's acquire); on_done frees it.
// An op whose slot is still taken by an op not done yet goes to the overflow map, under a mutex.
struct Staged {
  std::atomic<uint64_t> correlation_id{0};
  uint32_t types = 0;  // bit per cnpapiActivityExternalCorrelationType
  uint64_t ids[kExternalTypes] = {};
};
constexpr uint64_t kBusy = ~uint64_t{0};
constexpr size_t kStagedSlots = 1u << 14;
Staged g_staged[kStagedSlots];
struct Externals {
  uint32_t types;
  uint64_t ids[kExternalTypes];
};
std::mutex g_overflow_mutex;
std::unordered_map<uint64_t, Externals> g_overflow;

std::atomic<bool> g_initialized{false};
std::atomic<uint32_t> g_enabled{0};  // bit per cnpapiActivityType below 32
prof_sim_activity_subscribe_t g_subscribe = nullptr;

// The buffer being filled, and the tool's callbacks.
std::mutex g_mutex;
cnpapi_request g_requested = nullptr;
cnpapi_complete g_completed = nullptr;
uint64_t* g_buffer = nullptr;
size_t g_size = 0;
size_t g_used = 0;
size_t g_records = 0;
size_t g_max_records = 0;  // 0: as many as fit
uint64_t g_dropped = 0;

constexpr uint32_t bit(cnpapiActivityType type) { return 1u << static_cast<uint32_t>(type); }
bool enabled(cnpapiActivityType type) {
  return (g_enabled.load(std::memory_order_acquire) & bit(type)) != 0;
}

size_t record_bytes(cnpapiActivityType type) {
  switch (type) {
    case CNPAPI_ACTIVITY_TYPE_KERNEL: return sizeof(cnpapiActivityKernel);
    case CNPAPI_ACTIVITY_TYPE_MEMCPY: return sizeof(cnpapiActivityMemcpy);
    case CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP: return sizeof(cnpapiActivityMemcpyPtoP);
    case CNPAPI_ACTIVITY_TYPE_MEMSET: return sizeof(cnpapiActivityMemset);
    case CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION:
      return sizeof(cnpapiActivityExternalCorrelation);
    default: return 0;
  }
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

void on_enqueue(uint64_t correlation_id, uint32_t, void*) {
  if (!enabled(CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION)) return;
  Externals e{};
  for (int t = 0; t < kExternalTypes; ++t) {
    const int depth = t_stacks.depth[t];
    if (depth <= 0) continue;
    e.types |= 1u << t;
    e.ids[t] = t_stacks.ids[t][depth - 1];
  }
  if (e.types == 0) return;
  Staged& slot = g_staged[correlation_id % kStagedSlots];
  uint64_t free_slot = 0;
  if (slot.correlation_id.compare_exchange_strong(free_slot, kBusy, std::memory_order_acquire)) {
    slot.types = e.types;
    std::memcpy(slot.ids, e.ids, sizeof slot.ids);
    slot.correlation_id.store(correlation_id, std::memory_order_release);
    return;
  }
  std::lock_guard<std::mutex> lock(g_overflow_mutex);
  g_overflow[correlation_id] = e;
}

Externals take_externals(uint64_t correlation_id) {
  Staged& slot = g_staged[correlation_id % kStagedSlots];
  if (slot.correlation_id.load(std::memory_order_acquire) == correlation_id) {
    Externals e{slot.types, {}};
    std::memcpy(e.ids, slot.ids, sizeof e.ids);
    slot.correlation_id.store(0, std::memory_order_release);
    return e;
  }
  std::lock_guard<std::mutex> lock(g_overflow_mutex);
  auto it = g_overflow.find(correlation_id);
  if (it == g_overflow.end()) return Externals{};
  const Externals e = it->second;
  g_overflow.erase(it);
  return e;
}

// Under g_mutex: room for `bytes` more and `count` more records in the current buffer.
bool fits(size_t bytes, size_t count) {
  return g_buffer != nullptr && g_used + bytes <= g_size &&
         (g_max_records == 0 || g_records + count <= g_max_records);
}

// Under g_mutex: a new buffer from the tool (callbacks registered, nothing current).
void request_buffer() {
  if (g_requested == nullptr) return;
  uint64_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  g_requested(&buffer, &size, &max_records);
  if (buffer == nullptr) return;
  g_buffer = buffer;
  g_size = size & ~size_t{7};  // records are 8-byte aligned
  g_used = 0;
  g_records = 0;
  g_max_records = max_records;
}

struct Completed {
  uint64_t* buffer = nullptr;
  size_t size = 0;
  size_t valid = 0;
  cnpapi_complete completed = nullptr;  // read under g_mutex, called after it
};

// Under g_mutex: the current buffer, taken from the writers (to complete once unlocked).
Completed take_buffer() {
  Completed c{g_buffer, g_size, g_used, g_completed};
  g_buffer = nullptr;
  g_size = g_used = g_records = 0;
  return c;
}

void complete(const Completed& c) {
  if (c.buffer != nullptr && c.completed != nullptr) c.completed(c.buffer, c.size, c.valid);
}

void* place(size_t bytes) {
  void* at = reinterpret_cast<char*>(g_buffer) + g_used;
  std::memset(at, 0, bytes);
  g_used += bytes;
  ++g_records;
  return at;
}

void on_done(const prof_sim_op_report* r, void*) {
  cnpapiActivityType type = CNPAPI_ACTIVITY_TYPE_KERNEL;
  if (r->kind == PROF_SIM_OP_MEMSET)
    type = CNPAPI_ACTIVITY_TYPE_MEMSET;
  else if (r->kind == PROF_SIM_OP_COPY)
    type = r->direction == PROF_SIM_COPY_P2P ? CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP
                                             : CNPAPI_ACTIVITY_TYPE_MEMCPY;
  const Externals e = take_externals(r->correlation_id);
  const bool own = enabled(type);
  const bool external = e.types != 0 && enabled(CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION);
  size_t bytes = own ? record_bytes(type) : 0, count = own ? 1 : 0;
  if (external)
    for (int t = 0; t < kExternalTypes; ++t)
      if (e.types & (1u << t)) bytes += sizeof(cnpapiActivityExternalCorrelation), ++count;
  if (count == 0) return;

  Completed full;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!fits(bytes, count)) {
      if (g_buffer != nullptr && g_records != 0) full = take_buffer();
      if (g_buffer == nullptr) request_buffer();
    }
    if (!fits(bytes, count)) {
      g_dropped += count;
    } else {
      if (external)
        for (int t = 0; t < kExternalTypes; ++t) {
          if ((e.types & (1u << t)) == 0) continue;
          auto* x = static_cast<cnpapiActivityExternalCorrelation*>(
              place(sizeof(cnpapiActivityExternalCorrelation)));
          x->type = CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION;
          x->external_type = static_cast<cnpapiActivityExternalCorrelationType>(t);
          x->external_id = e.ids[t];
          x->correlation_id = r->correlation_id;
        }
      if (own && type == CNPAPI_ACTIVITY_TYPE_KERNEL) {
        auto* k = static_cast<cnpapiActivityKernel*>(place(sizeof(cnpapiActivityKernel)));
        k->type = type;
        k->correlation_id = k->runtime_correlation_id = r->correlation_id;
        k->start = r->begin_ns;
        k->end = r->end_ns;
        k->device_id = static_cast<uint64_t>(r->device);
        k->name = nullptr;  // n/a: the report's name is valid during the report only, the record
                            // lives longer
        k->queue_id = r->stream;
        k->dimx = r->grid[0], k->dimy = r->grid[1], k->dimz = r->grid[2];
        k->kernel_type = r->block[0];
      } else if (own && type == CNPAPI_ACTIVITY_TYPE_MEMSET) {
        auto* m = static_cast<cnpapiActivityMemset*>(place(sizeof(cnpapiActivityMemset)));
        m->type = type;
        transfer_fields(m, r);
      } else if (own && type == CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP) {
        auto* m = static_cast<cnpapiActivityMemcpyPtoP*>(place(sizeof(cnpapiActivityMemcpyPtoP)));
        m->type = type;
        m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_PTOP;
        transfer_fields(m, r);
      } else if (own) {
        auto* m = static_cast<cnpapiActivityMemcpy*>(place(sizeof(cnpapiActivityMemcpy)));
        m->type = type;
        switch (r->direction) {
          case PROF_SIM_COPY_H2D: m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_HTOD; break;
          case PROF_SIM_COPY_D2H: m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_DTOH; break;
          case PROF_SIM_COPY_D2D: m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_DTOD; break;
          case PROF_SIM_COPY_H2H: m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_HTOH; break;
          default: m->copy_type = CNPAPI_ACTIVITY_MEMCPY_TYPE_UNKNOWN; break;
        }
        transfer_fields(m, r);
      }
    }
  }
  complete(full);
}

// The model's subscription follows the enabled types: every op kind while any is on.
void resubscribe() {
  constexpr uint32_t kReported =
      bit(CNPAPI_ACTIVITY_TYPE_KERNEL) | bit(CNPAPI_ACTIVITY_TYPE_MEMCPY) |
      bit(CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP) | bit(CNPAPI_ACTIVITY_TYPE_MEMSET) |
      bit(CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION);
  prof_sim_activity_subscriber s{};
  if (g_enabled.load(std::memory_order_acquire) & kReported)
    s.kinds = (1u << PROF_SIM_OP_KERNEL) | (1u << PROF_SIM_OP_COPY) | (1u << PROF_SIM_OP_MEMSET);
  s.on_enqueue = on_enqueue;
  s.on_done = on_done;
  if (g_subscribe != nullptr) (void)g_subscribe(&s);
}

bool known_type(cnpapiActivityType type) {
  return type > CNPAPI_ACTIVITY_TYPE_UNKNOWN && type < CNPAPI_ACTIVITY_TYPE_SIZE;
}

}  // namespace

// libcnrt.so must be loaded already (the profiled program's runtime): its model is the device.
PROF_CNPAPI_EXPORT cnpapiResult cnpapiInit() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_initialized.load(std::memory_order_acquire)) return CNPAPI_SUCCESS;
  void* cnrt = dlopen("libcnrt.so", RTLD_NOLOAD | RTLD_NOW);
  if (cnrt == nullptr) return CNPAPI_ERROR_NO_DRIVER;
  g_subscribe =
      reinterpret_cast<prof_sim_activity_subscribe_t>(dlsym(cnrt, "prof_sim_activity_subscribe"));
  if (g_subscribe == nullptr) {
    dlclose(cnrt);
    return CNPAPI_ERROR_NO_DRIVER;
  }
  g_initialized.store(true, std::memory_order_release);
  return CNPAPI_SUCCESS;
}

// Unsubscribes, hands the tool its current buffer, and forgets the callbacks.
PROF_CNPAPI_EXPORT cnpapiResult cnpapiRelease() {
  if (!g_initialized.load(std::memory_order_acquire)) return CNPAPI_ERROR_NOT_INITIALIZED;
  g_enabled.store(0, std::memory_order_release);
  resubscribe();
  Completed last;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    last = take_buffer();
  }
  complete(last);  // the tool gets its buffer back, records or not
  std::lock_guard<std::mutex> lock(g_mutex);
  g_requested = nullptr;
  g_completed = nullptr;
  g_initialized.store(false, std::memory_order_release);
  return CNPAPI_SUCCESS;
}

PROF_CNPAPI_EXPORT uint64_t cnpapiGetTimestamp() { return monotonic_ns(); }

PROF_CNPAPI_EXPORT cnpapiResult cnpapiGetResultString(cnpapiResult result, const char** str) {
  static constexpr const char* kNames[] = {"CNPAPI_SUCCESS",
                                           "CNPAPI_ERROR_NOT_INITIALIZED",
                                           "CNPAPI_ERROR_INVALID_DEVICE",
                                           "CNPAPI_ERROR_INVALID_ARGUMENT",
                                           "CNPAPI_ERROR_EVENT_GROUP_ENABLED",
                                           "CNPAPI_ERROR_INSUFFICIENT_MEMORY",
                                           "CNPAPI_ERROR_NO_DRIVER",
                                           "CNPAPI_ERROR_RESERVED0",
                                           "CNPAPI_ERROR_UNKNOWN",
                                           "CNPAPI_ERROR_MAX_LIMIT_REACHED",
                                           "CNPAPI_ERROR_DRIVER_COMMUNICATION_FAILED",
                                           "CNPAPI_ERROR_DEVICE_BUSY",
                                           "CNPAPI_ERROR_ALREADY_IN_USE",
                                           "CNPAPI_ERROR_ACTIVITY_CALLBACK_NOT_REGISTERED",
                                           "CNPAPI_ERROR_ACTIVITY_CALLBACK_ALREADY_REGISTERED",
                                           "CNPAPI_ERROR_PMU_COUNTER_NOT_ENABLED",
                                           "CNPAPI_ERROR_INVALID_PMU_COUNTER_ID",
                                           "CNPAPI_ERROR_INVALID_PMU_COUNTER_NAME",
                                           "CNPAPI_ERROR_INVALID_DEVICE_TYPE",
                                           "CNPAPI_ERROR_UNSUPPORTED_DRIVER_VERSION",
                                           "CNPAPI_ERROR_INVALID_CHIP_TYPE"};
  const auto i = static_cast<size_t>(result);
  if (str == nullptr || i >= sizeof kNames / sizeof kNames[0]) return CNPAPI_ERROR_INVALID_ARGUMENT;
  *str = kNames[i];
  return CNPAPI_SUCCESS;
}

// Callbacks first: a type is recorded into the tool's buffers only.
PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityEnable(cnpapiActivityType type) {
  if (!g_initialized.load(std::memory_order_acquire)) return CNPAPI_ERROR_NOT_INITIALIZED;
  if (!known_type(type)) return CNPAPI_ERROR_INVALID_ARGUMENT;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_requested == nullptr || g_completed == nullptr)
      return CNPAPI_ERROR_ACTIVITY_CALLBACK_NOT_REGISTERED;
  }
  if (type < 32) g_enabled.fetch_or(bit(type), std::memory_order_acq_rel);
  resubscribe();
  return CNPAPI_SUCCESS;
}

PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityDisable(cnpapiActivityType type) {
  if (!g_initialized.load(std::memory_order_acquire)) return CNPAPI_ERROR_NOT_INITIALIZED;
  if (!known_type(type)) return CNPAPI_ERROR_INVALID_ARGUMENT;
  if (type < 32) g_enabled.fetch_and(~bit(type), std::memory_order_acq_rel);
  resubscribe();
  return CNPAPI_SUCCESS;
}

// (nullptr, nullptr) unregisters, as tools do at tear-down.
PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityRegisterCallbacks(cnpapi_request requested,
                                                                cnpapi_complete completed) {
  if (!g_initialized.load(std::memory_order_acquire)) return CNPAPI_ERROR_NOT_INITIALIZED;
  if ((requested == nullptr) != (completed == nullptr)) return CNPAPI_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (requested != nullptr && g_requested != nullptr)
    return CNPAPI_ERROR_ACTIVITY_CALLBACK_ALREADY_REGISTERED;
  g_requested = requested;
  g_completed = completed;
  return CNPAPI_SUCCESS;
}

PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityFlushAll() {
  if (!g_initialized.load(std::memory_order_acquire)) return CNPAPI_ERROR_NOT_INITIALIZED;
  Completed c;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_buffer != nullptr && g_records != 0) c = take_buffer();
  }
  complete(c);
  return CNPAPI_SUCCESS;
}

PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityGetNextRecord(void* buffer, size_t validSize,
                                                            cnpapiActivity** record) {
  if (buffer == nullptr || record == nullptr) return CNPAPI_ERROR_INVALID_ARGUMENT;
  char* base = static_cast<char*>(buffer);
  size_t offset = 0;
  if (*record != nullptr) {
    const size_t at = static_cast<size_t>(reinterpret_cast<char*>(*record) - base);
    const size_t bytes = record_bytes((*record)->type);
    if (bytes == 0 || at >= validSize) return CNPAPI_ERROR_INVALID_ARGUMENT;
    offset = at + bytes;
  }
  if (offset + sizeof(cnpapiActivity) > validSize) {
    *record = nullptr;
    return CNPAPI_ERROR_MAX_LIMIT_REACHED;
  }
  *record = reinterpret_cast<cnpapiActivity*>(base + offset);
  return CNPAPI_SUCCESS;
}

PROF_CNPAPI_EXPORT cnpapiResult
cnpapiActivityPushExternalCorrelationId(cnpapiActivityExternalCorrelationType type, uint64_t id) {
  if (type <= CNPAPI_EXTERNAL_CORRELATION_TYPE_INVALID ||
      type >= CNPAPI_EXTERNAL_CORRELATION_TYPE_SIZE)
    return CNPAPI_ERROR_INVALID_ARGUMENT;
  int& depth = t_stacks.depth[type];
  if (depth >= kStackDepth) return CNPAPI_ERROR_MAX_LIMIT_REACHED;
  t_stacks.ids[type][depth++] = id;
  return CNPAPI_SUCCESS;
}

// `lastId` may be null (tools pop without reading it).
PROF_CNPAPI_EXPORT cnpapiResult cnpapiActivityPopExternalCorrelationId(
    cnpapiActivityExternalCorrelationType type, uint64_t* lastId) {
  if (type <= CNPAPI_EXTERNAL_CORRELATION_TYPE_INVALID ||
      type >= CNPAPI_EXTERNAL_CORRELATION_TYPE_SIZE)
    return CNPAPI_ERROR_INVALID_ARGUMENT;
  int& depth = t_stacks.depth[type];
  if (depth <= 0) return CNPAPI_ERROR_INVALID_ARGUMENT;
  const uint64_t id = t_stacks.ids[type][--depth];
  if (lastId != nullptr) *lastId = id;
  return CNPAPI_SUCCESS;
}
