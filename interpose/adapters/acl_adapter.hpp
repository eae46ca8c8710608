// ACL's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about ACL beyond its table. Compiled into the preload library only.
#pragma once
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "interpose/adapters/recent_joins.hpp"
#include "interpose/dl_hooks.hpp"
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/acl/acl_abi.hpp"
#include "runtimes/acl/mspti_activity.hpp"

namespace prof::interpose {

// Copy direction of an aclrtMemcpyKind (0..7, the `aux` of copies).
constexpr CopyDirection prof_direction(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return CopyDirection::kHostToHost;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return CopyDirection::kHostToDevice;
    case ACL_MEMCPY_DEVICE_TO_HOST: return CopyDirection::kDeviceToHost;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE: return CopyDirection::kDeviceToDevice;
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: return CopyDirection::kPeer;
    case ACL_MEMCPY_DEFAULT: return CopyDirection::kDefault;
  }
  return CopyDirection::kUnknown;
}

// An aclrtLaunchKernel's geometry: numBlocks blocks (the kernels table's grid_x).
constexpr dim3 acl_grid(uint32_t blocks) { return dim3{blocks, 1, 1}; }
constexpr dim3 acl_block() { return dim3{1, 1, 1}; }

namespace acl_timing {
inline int stream_create(void** s) { return call_real<ApiId::aclrtCreateStream>(s); }
inline int stream_destroy(void* s) { return call_real<ApiId::aclrtDestroyStream>(s); }
// Timing events are created with ACL_EVENT_TIME_LINE (the flag that records timestamps).
inline int event_create(void** e) {
  return call_real<ApiId::aclrtCreateEventWithFlag>(e, ACL_EVENT_TIME_LINE);
}
inline int event_destroy(void* e) { return call_real<ApiId::aclrtDestroyEvent>(e); }
inline int event_record(void* e, void* s) { return call_real<ApiId::aclrtRecordEvent>(e, s); }
inline int event_synchronize(void* e) { return call_real<ApiId::aclrtSynchronizeEvent>(e); }
inline int event_elapsed_ms(float* ms, void* a, void* b) {
  return call_real<ApiId::aclrtEventElapsedTime>(ms, a, b);
}
inline int set_device(int device) { return call_real<ApiId::aclrtSetDevice>(device); }
// ACL answers through an out-parameter; the timing algorithm wants "not ready" as a status.
inline int event_query(void* e) {
  auto fn = real<ApiId::aclrtQueryEventStatus>();
  if (!fn) return TimingAdapter::kNoFunction;
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  const int ret = fn(e, &status);
  if (ret != ACL_SUCCESS) return ret;
  return status == ACL_EVENT_RECORDED_STATUS_COMPLETE ? ACL_SUCCESS
                                                      : ACL_ERROR_RT_EVENT_NOT_COMPLETE;
}
inline int stream_is_capturing(void* s, bool* capturing) {
  auto fn = real<ApiId::aclmdlRICaptureGetInfo>();
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  aclmdlRI ri = nullptr;
  const int ret = fn ? fn(s, &status, &ri) : ACL_SUCCESS;
  *capturing = status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  return ret;
}

// ---- per-op device times from MSPTI (libmspti.so, runtimes/acl/mspti_activity.hpp) ------------
// prof's correlation id is pushed as a CUSTOM0 external id around each timed call; MSPTI binds it
// to the op it enqueues in an EXTERNAL_CORRELATION record, and the op's KERNEL / MEMCPY / MEMSET
// record carries the device times under MSPTI's own correlation id. The buffer callbacks join the
// two and hand prof's id with the times to activity_deliver.
//
// Real MSPTI must be LD_PRELOADed (it hooks the CANN runtime as it loads); prof takes it if it is
// loaded already, else dlopens it by name (the simulated libmspti.so beside the face, found on
// LD_LIBRARY_PATH, works either way). A real MSPTI loaded too late would report nothing: its ops
// end as timing drops; PROF_DEVICE_ACTIVITY=0 times them with events.
struct Mspti {
  msptiActivityRegisterCallbacks_t register_callbacks;
  msptiActivityEnable_t enable;
  msptiActivityDisable_t disable;
  msptiActivityGetNextRecord_t next_record;
  msptiActivityFlushAll_t flush_all;
  msptiActivityPushExternalCorrelationId_t push;
  msptiActivityPopExternalCorrelationId_t pop;
};
// Set once by activity_open before the first push; read by the hooks and the callbacks after.
inline Mspti g_mspti{};

// The join, from any thread that hands a buffer back (MSPTI's own, the harvester's in
// activity_flush, a runtime thread whose record filled a buffer). Either record of an op may come
// first (the real MSPTI completes buffers on several threads); entries are erased when joined,
// and each map is bounded (a record prof never joins, such as an op of an untimed call, does not
// make it grow without end). Never freed: callbacks may run during exit.
struct MsptiJoin {
  static constexpr size_t kMaxUnjoined = 1 << 16;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  std::unordered_map<uint64_t, uint64_t> external_of;  // MSPTI correlation id -> prof's
  struct Times {
    uint64_t start_ns, end_ns;
  };
  std::unordered_map<uint64_t, Times> times_of;  // MSPTI correlation id -> device times
  std::vector<uint8_t*> spare_buffers;           // handed back, to be handed out again
  RecentJoins<256> joined;                       // the other ops of a call that enqueued several
};
inline MsptiJoin* g_mspti_join = nullptr;
inline constexpr size_t kMsptiBufferBytes = 2u << 20;  // MSPTI warns below 2 MiB
inline constexpr size_t kMsptiSpareBuffers = 8;

template <typename Map, typename Value>
inline void mspti_bounded_put(Map& map, uint64_t key, const Value& value) {
  if (map.size() >= MsptiJoin::kMaxUnjoined) map.erase(map.begin());
  map[key] = value;
}

inline void mspti_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  uint8_t* b = nullptr;
  MsptiJoin& j = *g_mspti_join;
  pthread_mutex_lock(&j.mutex);
  if (!j.spare_buffers.empty()) {
    b = j.spare_buffers.back();
    j.spare_buffers.pop_back();
  }
  pthread_mutex_unlock(&j.mutex);
  if (b == nullptr) b = static_cast<uint8_t*>(aligned_alloc(8, kMsptiBufferBytes));
  *buffer = b;
  *size = b ? kMsptiBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// One op record's MSPTI correlation id and times, joined to prof's id under the mutex.
inline void mspti_on_op(MsptiJoin& j, uint64_t correlation_id, uint64_t start_ns, uint64_t end_ns) {
  auto it = j.external_of.find(correlation_id);
  if (it != j.external_of.end()) {
    const uint64_t external = it->second;
    j.joined.add(correlation_id, external);
    j.external_of.erase(it);
    activity_deliver(RuntimeId::kAcl, external, start_ns, end_ns);
    return;
  }
  if (const uint64_t external = j.joined.find(correlation_id); external != 0) {
    activity_deliver(RuntimeId::kAcl, external, start_ns, end_ns);
    return;
  }
  // Several ops of one call before its binding: kept as their span (the harvester spans them
  // anyway).
  if (auto t = j.times_of.find(correlation_id); t != j.times_of.end()) {
    t->second = MsptiJoin::Times{std::min(t->second.start_ns, start_ns),
                                 std::max(t->second.end_ns, end_ns)};
    return;
  }
  mspti_bounded_put(j.times_of, correlation_id, MsptiJoin::Times{start_ns, end_ns});
}

inline void mspti_on_external(MsptiJoin& j, const msptiActivityExternalCorrelation& r) {
  if (r.externalKind != MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) return;  // another tool's
  auto it = j.times_of.find(r.correlationId);
  if (it == j.times_of.end()) {
    mspti_bounded_put(j.external_of, r.correlationId, static_cast<uint64_t>(r.externalId));
    return;
  }
  const MsptiJoin::Times t = it->second;
  j.joined.add(r.correlationId, r.externalId);
  j.times_of.erase(it);
  activity_deliver(RuntimeId::kAcl, r.externalId, t.start_ns, t.end_ns);
}

// Reads a record only when the whole of it lies inside the valid bytes: a library whose records
// are not the header's sizes is ignored rather than read past the buffer.
inline void mspti_buffer_completed(uint8_t* buffer, size_t, size_t valid_bytes) {
  if (buffer == nullptr) return;
  MsptiJoin& j = *g_mspti_join;
  const uint8_t* const end = buffer + valid_bytes;
  pthread_mutex_lock(&j.mutex);
  // At most one record per 8 bytes: a library that never says "end" cannot loop here for ever.
  for (size_t n = 0; n <= valid_bytes / 8; ++n) {
    msptiActivity* record = nullptr;
    const msptiResult ret = g_mspti.next_record(buffer, valid_bytes, &record);
    if (ret == MSPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (ret != MSPTI_SUCCESS || record == nullptr) {
      // MSPTI keeps its place in a buffer per thread and forgets it only on reaching the end:
      // asking about an empty buffer reaches it, so the next buffer read here starts at its start.
      g_mspti.next_record(buffer, 0, &record);
      break;
    }
    const auto* at = reinterpret_cast<const uint8_t*>(record);
    const size_t room = at >= buffer && at < end ? static_cast<size_t>(end - at) : 0;
    switch (room >= sizeof(msptiActivity) ? record->kind : MSPTI_ACTIVITY_KIND_INVALID) {
      case MSPTI_ACTIVITY_KIND_KERNEL:
        if (room >= sizeof(msptiActivityKernel)) {
          const auto* k = reinterpret_cast<const msptiActivityKernel*>(record);
          mspti_on_op(j, k->correlationId, k->start, k->end);
        }
        break;
      case MSPTI_ACTIVITY_KIND_MEMCPY:
        if (room >= sizeof(msptiActivityMemcpy)) {
          const auto* c = reinterpret_cast<const msptiActivityMemcpy*>(record);
          mspti_on_op(j, c->correlationId, c->start, c->end);
        }
        break;
      case MSPTI_ACTIVITY_KIND_MEMSET:
        if (room >= sizeof(msptiActivityMemset)) {
          const auto* m = reinterpret_cast<const msptiActivityMemset*>(record);
          mspti_on_op(j, m->correlationId, m->start, m->end);
        }
        break;
      case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        if (room >= sizeof(msptiActivityExternalCorrelation))
          mspti_on_external(j, *reinterpret_cast<const msptiActivityExternalCorrelation*>(record));
        break;
      default: break;
    }
  }
  if (j.spare_buffers.size() < kMsptiSpareBuffers) {
    j.spare_buffers.push_back(buffer);
    buffer = nullptr;
  }
  pthread_mutex_unlock(&j.mutex);
  free(buffer);
}

template <typename Fn>
inline bool mspti_resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(real_dlsym(lib, name));  // prof's own lookup: never its dlsym hook
  return fn != nullptr;
}

inline bool activity_open() {
  void* lib = dlopen("libmspti.so", RTLD_NOW | RTLD_NOLOAD);  // preloaded, as real MSPTI must be
  if (lib == nullptr) lib = dlopen("libmspti.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  Mspti m{};
  if (!mspti_resolve(lib, "msptiActivityRegisterCallbacks", m.register_callbacks) ||
      !mspti_resolve(lib, "msptiActivityEnable", m.enable) ||
      !mspti_resolve(lib, "msptiActivityDisable", m.disable) ||
      !mspti_resolve(lib, "msptiActivityGetNextRecord", m.next_record) ||
      !mspti_resolve(lib, "msptiActivityFlushAll", m.flush_all) ||
      !mspti_resolve(lib, "msptiActivityPushExternalCorrelationId", m.push) ||
      !mspti_resolve(lib, "msptiActivityPopExternalCorrelationId", m.pop))
    return false;  // the handle stays open: a library loaded once stays, whatever prof does
  g_mspti = m;
  if (g_mspti_join == nullptr) g_mspti_join = new MsptiJoin;
  if (m.register_callbacks(mspti_buffer_requested, mspti_buffer_completed) != MSPTI_SUCCESS)
    return false;
  // The external correlation first: no op may be reported before prof can join it.
  constexpr msptiActivityKind kKinds[] = {MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                          MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_MEMCPY,
                                          MSPTI_ACTIVITY_KIND_MEMSET};
  for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; ++i) {
    if (m.enable(kKinds[i]) == MSPTI_SUCCESS) continue;
    while (i-- > 0) m.disable(kKinds[i]);
    return false;
  }
  return true;
}
// The application's thread, around each timed call: two calls into MSPTI, nothing else.
inline void activity_push(uint64_t correlation_id) {
  g_mspti.push(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, correlation_id);
}
inline void activity_pop() {
  uint64_t last = 0;
  g_mspti.pop(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}
// The harvester's thread, each round while ACL ops wait: MSPTI hands back what it holds.
inline void activity_flush() { g_mspti.flush_all(0); }
}  // namespace acl_timing

inline constexpr TimingAdapter kAclTiming{RuntimeId::kAcl,
                                          ACL_SUCCESS,
                                          ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                                          acl_timing::stream_create,
                                          acl_timing::stream_destroy,
                                          acl_timing::event_create,
                                          acl_timing::event_destroy,
                                          acl_timing::event_record,
                                          acl_timing::event_query,
                                          acl_timing::event_synchronize,
                                          acl_timing::event_elapsed_ms,
                                          acl_timing::stream_is_capturing,
                                          acl_timing::set_device,
                                          true,
                                          nullptr,
                                          false,
                                          acl_timing::activity_open,
                                          acl_timing::activity_push,
                                          acl_timing::activity_pop,
                                          acl_timing::activity_flush};

struct AclAdapter {
  using Status = aclError;
  using Stream = aclrtStream;
  static constexpr RuntimeId kRuntime = RuntimeId::kAcl;
  static constexpr Status kSuccess = ACL_SUCCESS;
  static constexpr Status kNoLibrary =
      ACL_ERROR_UNINITIALIZE;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset =
      ApiId::aclrtResetDevice;  // destroys the device's events: flush timing first
  static constexpr ApiId kFinalize =
      ApiId::aclFinalize;  // after it no ACL call works: flush timing first
  // Capture into a model runtime instance (interpose/stream_capture.hpp). An end that succeeded,
  // or found the capture invalidated, has ended it; other errors (including a failure to build the
  // model after the capture ended) leave it counted, which only costs the query.
  static constexpr ApiId kCaptureBegin = ApiId::aclmdlRICaptureBegin;
  static constexpr ApiId kCaptureEnd = ApiId::aclmdlRICaptureEnd;
  static constexpr bool capture_ended(Status s) {
    return s == ACL_SUCCESS || s == ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
  }
  static constexpr const TimingAdapter& kTiming = kAclTiming;
};

}  // namespace prof::interpose
