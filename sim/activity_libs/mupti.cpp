// The simulated libmupti.so: MUPTI's activity interface (runtimes/musa/mupti_activity.hpp) over the
// simulated libmusart.so.5's per-op reports (sim/activity_subscriber.h), as a real MUPTI sits on
// its driver. It reaches the runtime only through prof_sim_activity_subscribe, found in the
// already loaded libmusart.so.5, and never calls the runtime from a report.
//
// The contract, as CUPTI's: while a thread has an external id pushed, each kernel, copy and memset
// its calls enqueue is preceded by an EXTERNAL_CORRELATION record (the top id of each external
// kind pushed) binding the op's correlation id, written inside the call; the op's own record
// (CONCURRENT_KERNEL or KERNEL, MEMCPY, MEMSET: start/end, device, stream, correlation id) follows
// once its device times are final. As in CUPTI, EXTERNAL_CORRELATION records come only while
// RUNTIME is enabled too (CUPTI hangs them on API records; this library writes no API records).
// Records fill the tool's buffers (bufferRequested), which go back through bufferCompleted when
// full (on the thread of the report that found it full) or on muptiActivityFlushAll.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtimes/musa/mupti_activity.hpp"
#include "sim/activity_subscriber.h"

namespace prof::sim::mupti {
namespace {

using namespace prof::mupti;

constexpr uint64_t bit(uint32_t kind) { return kind < 64 ? uint64_t{1} << kind : 0; }
constexpr uint64_t kSupportedKinds = bit(kActivityKindMemcpy) | bit(kActivityKindMemset) |
                                     bit(kActivityKindKernel) | bit(kActivityKindConcurrentKernel) |
                                     bit(kActivityKindRuntime) |
                                     bit(kActivityKindExternalCorrelation);
constexpr uint64_t kCorrelating = bit(kActivityKindExternalCorrelation) | bit(kActivityKindRuntime);

// The calling thread's external ids, one stack per external kind. Deeper than kDepth, pushes and
// pops still balance, and the calls made meanwhile are not correlated.
constexpr int kDepth = 16;
struct ExternalStack {
  uint64_t ids[kDepth];
  int depth;
};
thread_local ExternalStack t_external[kExternalCorrelationKindSize];

struct Buffer {
  uint8_t* data;
  size_t size;
  size_t valid;
};

struct State {
  std::mutex mutex;
  BufferRequestedFn requested = nullptr;
  BufferCompletedFn completed = nullptr;
  uint8_t* data = nullptr;  // the buffer being filled
  size_t size = 0;
  size_t valid = 0;
  std::vector<Buffer> full;               // filled, not handed back yet
  size_t dropped = 0;                     // records with no buffer to go in
  std::unordered_set<std::string> names;  // kernels' names, which records point to for good
  prof_sim_activity_subscribe_t subscribe = nullptr;
};
State g_state;
std::atomic<uint64_t> g_enabled{0};  // bit per ActivityKind

size_t record_size(uint32_t kind) {
  switch (kind) {
    case kActivityKindExternalCorrelation: return sizeof(ActivityExternalCorrelation);
    case kActivityKindKernel:
    case kActivityKindConcurrentKernel: return sizeof(ActivityKernel6);
    case kActivityKindMemcpy: return sizeof(ActivityMemcpy4);
    case kActivityKindMemset: return sizeof(ActivityMemset3);
    default: return 0;
  }
}

// Under g_state.mutex. A buffer found full is queued for bufferCompleted, which the caller's
// hand_back runs once the lock is released.
void append_locked(const void* record, size_t bytes) {
  State& s = g_state;
  if (s.data == nullptr || s.valid + bytes > s.size) {
    if (s.data != nullptr) s.full.push_back({s.data, s.size, s.valid});
    s.data = nullptr;
    uint8_t* data = nullptr;
    size_t size = 0, max_records = 0;
    if (s.requested != nullptr) s.requested(&data, &size, &max_records);
    // CUPTI's rule: 8-aligned, room for a record.
    if (data == nullptr || reinterpret_cast<uintptr_t>(data) % 8 != 0 || size < bytes) {
      ++s.dropped;
      return;
    }
    s.data = data;
    s.size = size;
    s.valid = 0;
  }
  std::memcpy(s.data + s.valid, record, bytes);
  s.valid += bytes;
}

// Outside the lock: the tool's callback may take its own locks and call muptiActivityGetNextRecord.
void hand_back(std::vector<Buffer>& buffers) {
  BufferCompletedFn completed = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_state.mutex);
    completed = g_state.completed;
  }
  for (const Buffer& b : buffers)
    if (completed != nullptr) completed(nullptr, 0, b.data, b.size, b.valid);
  buffers.clear();
}

// On the enqueuing thread, inside its call, under the model's lock: one record per external kind
// pushed, nothing else.
void on_enqueue(uint64_t correlation_id, uint32_t, void*) {
  if ((g_enabled.load(std::memory_order_acquire) & kCorrelating) != kCorrelating) return;
  std::lock_guard<std::mutex> lock(g_state.mutex);
  for (uint32_t k = 0; k < kExternalCorrelationKindSize; ++k) {
    const ExternalStack& stack = t_external[k];
    if (stack.depth <= 0 || stack.depth > kDepth) continue;
    ActivityExternalCorrelation r{};
    r.kind = kActivityKindExternalCorrelation;
    r.externalKind = k;
    r.externalId = stack.ids[stack.depth - 1];
    r.correlationId = static_cast<uint32_t>(correlation_id);
    append_locked(&r, sizeof r);
  }
}

// The fields a copy's and a memset's records share, from the model's report.
template <typename Record, typename Kind>
void transfer_fields(Record& r, Kind kind, const prof_sim_op_report* report) {
  r.kind = kind;
  r.bytes = report->bytes;
  r.start = report->begin_ns;
  r.end = report->end_ns;
  r.deviceId = static_cast<uint32_t>(report->device);
  r.streamId = static_cast<uint32_t>(report->stream);
  r.correlationId = static_cast<uint32_t>(report->correlation_id);
}

void on_done(const prof_sim_op_report* report, void*) {
  const uint64_t enabled = g_enabled.load(std::memory_order_acquire);
  std::vector<Buffer> full;
  {
    std::lock_guard<std::mutex> lock(g_state.mutex);
    if (report->kind == PROF_SIM_OP_KERNEL &&
        (enabled & (bit(kActivityKindConcurrentKernel) | bit(kActivityKindKernel)))) {
      ActivityKernel6 r{};
      r.kind = (enabled & bit(kActivityKindConcurrentKernel)) ? kActivityKindConcurrentKernel
                                                              : kActivityKindKernel;
      r.start = report->begin_ns;
      r.end = report->end_ns;
      r.completed = report->end_ns;
      r.deviceId = static_cast<uint32_t>(report->device);
      r.streamId =
          static_cast<uint32_t>(report->stream);  // the model's handle value: its streams' ids
      r.gridX = static_cast<int32_t>(report->grid[0]),
      r.gridY = static_cast<int32_t>(report->grid[1]);
      r.gridZ = static_cast<int32_t>(report->grid[2]);
      r.blockX = static_cast<int32_t>(report->block[0]),
      r.blockY = static_cast<int32_t>(report->block[1]);
      r.blockZ = static_cast<int32_t>(report->block[2]);
      r.correlationId = static_cast<uint32_t>(report->correlation_id);
      if (report->name != nullptr) {
        auto it = g_state.names.find(report->name);
        if (it == g_state.names.end()) it = g_state.names.emplace(report->name).first;
        r.name = it->c_str();
      }
      append_locked(&r, sizeof r);
    } else if (report->kind == PROF_SIM_OP_COPY && (enabled & bit(kActivityKindMemcpy))) {
      ActivityMemcpy4 r{};
      transfer_fields(r, kActivityKindMemcpy, report);
      append_locked(&r, sizeof r);
    } else if (report->kind == PROF_SIM_OP_MEMSET && (enabled & bit(kActivityKindMemset))) {
      ActivityMemset3 r{};
      transfer_fields(r, kActivityKindMemset, report);
      append_locked(&r, sizeof r);
    }
    full.swap(g_state.full);
  }
  if (!full.empty()) hand_back(full);
}

// Under g_state.mutex. Tells the model which ops to report: every op while calls are correlated
// (their EXTERNAL_CORRELATION records), else the kinds enabled.
int resubscribe_locked(uint64_t enabled) {
  State& s = g_state;
  if (s.subscribe == nullptr) {
    void* runtime = dlopen("libmusart.so.5", RTLD_NOLOAD | RTLD_NOW);  // kept open while subscribed
    if (runtime == nullptr) return kErrorNotInitialized;
    s.subscribe = reinterpret_cast<prof_sim_activity_subscribe_t>(
        dlsym(runtime, "prof_sim_activity_subscribe"));
    if (s.subscribe == nullptr) {
      dlclose(runtime);
      return kErrorNotInitialized;
    }
  }
  prof_sim_activity_subscriber sub{};
  const bool all = (enabled & kCorrelating) == kCorrelating;
  if (all || (enabled & (bit(kActivityKindConcurrentKernel) | bit(kActivityKindKernel))))
    sub.kinds |= 1u << PROF_SIM_OP_KERNEL;
  if (all || (enabled & bit(kActivityKindMemcpy))) sub.kinds |= 1u << PROF_SIM_OP_COPY;
  if (all || (enabled & bit(kActivityKindMemset))) sub.kinds |= 1u << PROF_SIM_OP_MEMSET;
  sub.on_enqueue = on_enqueue;
  sub.on_done = on_done;
  return s.subscribe(&sub) == 0 ? kSuccess : kErrorUnknown;
}

int set_enabled(uint32_t kind, bool on) {
  if ((bit(kind) & kSupportedKinds) == 0) return kErrorInvalidKind;
  std::lock_guard<std::mutex> lock(g_state.mutex);
  const uint64_t before = g_enabled.load(std::memory_order_relaxed);
  const uint64_t after = on ? before | bit(kind) : before & ~bit(kind);
  const int status = resubscribe_locked(after);
  if (status == kSuccess) g_enabled.store(after, std::memory_order_release);
  return status;
}

}  // namespace
}  // namespace prof::sim::mupti

using namespace prof::mupti;
namespace sm = prof::sim::mupti;

#define PROF_MUPTI_EXPORT extern "C" __attribute__((visibility("default")))

PROF_MUPTI_EXPORT int muptiActivityRegisterCallbacks(BufferRequestedFn requested,
                                                     BufferCompletedFn completed) {
  if (requested == nullptr || completed == nullptr) return kErrorInvalidParameter;
  std::lock_guard<std::mutex> lock(sm::g_state.mutex);
  sm::g_state.requested = requested;
  sm::g_state.completed = completed;
  return kSuccess;
}

PROF_MUPTI_EXPORT int muptiActivityEnable(uint32_t kind) { return sm::set_enabled(kind, true); }
PROF_MUPTI_EXPORT int muptiActivityDisable(uint32_t kind) { return sm::set_enabled(kind, false); }

// Every record written so far, full buffers or not (the model writes a record only once it is
// final, so the forced flush hands back nothing more). A new buffer is asked for here, on the
// flushing thread, so the next records seldom need the tool's callback on the program's.
PROF_MUPTI_EXPORT int muptiActivityFlushAll(uint32_t) {
  std::vector<sm::Buffer> full;
  {
    std::lock_guard<std::mutex> lock(sm::g_state.mutex);
    sm::State& s = sm::g_state;
    if (s.data != nullptr && s.valid > 0) {
      s.full.push_back({s.data, s.size, s.valid});
      s.data = nullptr;
    }
    full.swap(s.full);
  }
  sm::hand_back(full);
  std::lock_guard<std::mutex> lock(sm::g_state.mutex);
  sm::State& s = sm::g_state;
  if (s.data == nullptr && s.requested != nullptr &&
      sm::g_enabled.load(std::memory_order_relaxed) != 0) {
    size_t max_records = 0;
    s.requested(&s.data, &s.size, &max_records);
    if (s.data != nullptr && reinterpret_cast<uintptr_t>(s.data) % 8 != 0) s.data = nullptr;
    s.valid = 0;
  }
  return kSuccess;
}

PROF_MUPTI_EXPORT int muptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size,
                                                 Activity** record) {
  if (buffer == nullptr || record == nullptr) return kErrorInvalidParameter;
  size_t offset = 0;
  if (*record != nullptr) {
    const size_t size = sm::record_size((*record)->kind);
    if (size == 0) return kErrorInvalidKind;
    offset = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) + size;
  }
  if (offset + sizeof(Activity) > valid_size) return kErrorMaxLimitReached;
  const size_t size = sm::record_size(reinterpret_cast<Activity*>(buffer + offset)->kind);
  if (size == 0 || offset + size > valid_size) return kErrorInvalidKind;
  *record = reinterpret_cast<Activity*>(buffer + offset);
  return kSuccess;
}

PROF_MUPTI_EXPORT int muptiActivityGetNumDroppedRecords(Context, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return kErrorInvalidParameter;
  std::lock_guard<std::mutex> lock(sm::g_state.mutex);
  *dropped = sm::g_state.dropped;
  sm::g_state.dropped = 0;
  return kSuccess;
}

PROF_MUPTI_EXPORT int muptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id) {
  if (kind == kExternalCorrelationKindInvalid || kind >= kExternalCorrelationKindSize)
    return kErrorInvalidParameter;
  sm::ExternalStack& stack = sm::t_external[kind];
  if (stack.depth < sm::kDepth) stack.ids[stack.depth] = id;
  ++stack.depth;
  return kSuccess;
}

PROF_MUPTI_EXPORT int muptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t* last_id) {
  if (kind == kExternalCorrelationKindInvalid || kind >= kExternalCorrelationKindSize)
    return kErrorInvalidParameter;
  sm::ExternalStack& stack = sm::t_external[kind];
  if (stack.depth <= 0) {
    if (last_id != nullptr) *last_id = 0;
    return kErrorQueueEmpty;
  }
  --stack.depth;
  if (last_id != nullptr) *last_id = stack.depth < sm::kDepth ? stack.ids[stack.depth] : 0;
  return kSuccess;
}

// The clock of the records' start and end: the model's, CLOCK_MONOTONIC.
PROF_MUPTI_EXPORT int muptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == nullptr) return kErrorInvalidParameter;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *timestamp = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  return kSuccess;
}
