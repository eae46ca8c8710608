// MUSA's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about MUSA beyond its table. Compiled into the preload library only.
#pragma once
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <utility>

#include "interpose/adapters/recent_joins.hpp"
#include "interpose/dl_hooks.hpp"
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/musa/mupti_activity.hpp"
#include "runtimes/musa/musa_abi.hpp"

namespace prof::interpose {

// Copy direction of a musaMemcpyKind (the `aux` of copies): CUDA's numbering 0..4, assumed for
// MUSA.
constexpr CopyDirection prof_direction(musaMemcpyKind kind) {
  switch (kind) {
    case musaMemcpyHostToHost: return CopyDirection::kHostToHost;
    case musaMemcpyHostToDevice: return CopyDirection::kHostToDevice;
    case musaMemcpyDeviceToHost: return CopyDirection::kDeviceToHost;
    case musaMemcpyDeviceToDevice: return CopyDirection::kDeviceToDevice;
    case musaMemcpyDefault: return CopyDirection::kDefault;
  }
  return CopyDirection::kUnknown;
}

namespace musa_timing {
inline int stream_create(void** s) {
  return call_real<ApiId::musaStreamCreateWithFlags>(reinterpret_cast<musaStream_t*>(s),
                                                     musaStreamNonBlocking);
}
inline int stream_destroy(void* s) {
  return call_real<ApiId::musaStreamDestroy>(static_cast<musaStream_t>(s));
}
inline int event_create(void** e) {  // confirmed row
  return call_real<ApiId::musaEventCreate>(reinterpret_cast<musaEvent_t*>(e));
}
inline int event_destroy(void* e) {
  return call_real<ApiId::musaEventDestroy>(static_cast<musaEvent_t>(e));
}
inline int event_record(void* e, void* s) {
  return call_real<ApiId::musaEventRecord>(static_cast<musaEvent_t>(e),
                                           static_cast<musaStream_t>(s));
}
inline int event_query(void* e) {
  return call_real<ApiId::musaEventQuery>(static_cast<musaEvent_t>(e));
}
inline int event_synchronize(void* e) {
  return call_real<ApiId::musaEventSynchronize>(static_cast<musaEvent_t>(e));
}
inline int event_elapsed_ms(float* ms, void* a, void* b) {
  return call_real<ApiId::musaEventElapsedTime>(ms, static_cast<musaEvent_t>(a),
                                                static_cast<musaEvent_t>(b));
}
inline int set_device(int device) { return call_real<ApiId::musaSetDevice>(device); }
inline int stream_is_capturing(void* s, bool* capturing) {
  auto fn = real<ApiId::musaStreamIsCapturing>();
  musaStreamCaptureStatus status = musaStreamCaptureStatusNone;
  // A runtime without capture support captures nothing.
  const int ret = fn ? static_cast<int>(fn(static_cast<musaStream_t>(s), &status)) : musaSuccess;
  *capturing = status != musaStreamCaptureStatusNone;
  return ret;
}
// CUDA-style variants MUSA versions may export; the table has no rows for them.
inline constexpr const char* kUnhookedExports[] = {"musaStreamBeginCapture_ptsz",
                                                   "musaStreamBeginCaptureToGraph",
                                                   "musaStreamBeginCaptureToGraph_ptsz", nullptr};

// ---- MUPTI: each op's device times, from the runtime's profiling library ----------------------
// prof pushes its correlation id as MUPTI's external id (CUSTOM0) around each timed call; MUPTI
// binds it to its own correlation id in an EXTERNAL_CORRELATION record and reports the op's
// times in a CONCURRENT_KERNEL, MEMCPY or MEMSET record carrying that correlation id. The two
// records may come in either order (different buffers, different threads): whichever comes first
// waits in a map for the other. Values and layouts are CUPTI's, assumed
// (runtimes/musa/mupti_activity.hpp), so a record is used only when it lies inside its buffer,
// has a kind prof enabled and plausible times; anything else is skipped.
struct MuptiFunctions {
  mupti::ActivityFlushAllFn flush_all = nullptr;
  mupti::ActivityGetNextRecordFn next_record = nullptr;
  mupti::ActivityPushExternalCorrelationIdFn push = nullptr;
  mupti::ActivityPopExternalCorrelationIdFn pop = nullptr;
};
// Written once by activity_open, before device timing publishes the subscription (release) to
// the threads that then push and flush (acquire).
inline MuptiFunctions g_mupti;

// Buffers MUPTI fills. Kept for reuse: the harvester flushes every round while ops wait, and each
// flush hands back a partly filled buffer and takes another.
inline constexpr size_t kMuptiBufferBytes = 256 * 1024;
inline constexpr int kMuptiSpareBuffers = 16;
// Bindings or times left waiting for their other half (a call that failed after MUPTI bound it,
// a record MUPTI dropped) are forgotten past this many.
inline constexpr size_t kMuptiMaxWaiting = 1u << 20;
struct MuptiJoin {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  std::unordered_map<uint32_t, uint64_t> external_of;  // MUPTI's id -> prof's
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>>
      times_of;             // MUPTI's id -> (start, end)
  RecentJoins<256> joined;  // the other ops of a call that enqueued several
  uint8_t* spare[kMuptiSpareBuffers] = {};
  int spare_count = 0;
  uint64_t skipped = 0;  // records not used: unknown kind, outside the buffer, implausible
};
// Never destroyed: MUPTI's threads may hand back a buffer while the process's exit handlers run.
inline MuptiJoin& mupti_join() {
  static MuptiJoin* const join = new MuptiJoin;
  return *join;
}

inline void mupti_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  MuptiJoin& j = mupti_join();
  uint8_t* b = nullptr;
  pthread_mutex_lock(&j.mutex);
  if (j.spare_count > 0) b = j.spare[--j.spare_count];
  pthread_mutex_unlock(&j.mutex);
  if (b == nullptr) b = static_cast<uint8_t*>(std::aligned_alloc(64, kMuptiBufferBytes));
  *buffer = b;
  *size = b != nullptr ? kMuptiBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// Whether a record of type T at `r` lies wholly inside the buffer's valid bytes.
template <typename T>
inline bool mupti_inside(const uint8_t* buffer, size_t valid, const mupti::Activity* r) {
  const auto* p = reinterpret_cast<const uint8_t*>(r);
  return p >= buffer && static_cast<size_t>(p - buffer) + sizeof(T) <= valid;
}

// Under the join's mutex: an op's times and prof's id meet.
inline void mupti_op_times(uint32_t correlation_id, uint64_t start, uint64_t end) {
  MuptiJoin& j = mupti_join();
  if (start == 0 || start > end) {  // in flight (a forced flush), or not the layout assumed
    ++j.skipped;
    return;
  }
  if (auto it = j.external_of.find(correlation_id); it != j.external_of.end()) {
    activity_deliver(RuntimeId::kMusa, it->second, start, end);
    j.joined.add(correlation_id, it->second);
    j.external_of.erase(it);
    return;
  }
  if (const uint64_t external = j.joined.find(correlation_id); external != 0) {
    activity_deliver(RuntimeId::kMusa, external, start, end);
    return;
  }
  if (j.times_of.size() >= kMuptiMaxWaiting) j.times_of.clear();
  // Several ops of one call before its binding: kept as their span (the harvester spans them
  // anyway).
  const auto [it, added] = j.times_of.try_emplace(correlation_id, start, end);
  if (!added) it->second = {std::min(it->second.first, start), std::max(it->second.second, end)};
}

// Under the join's mutex: a kernel, copy or memset record of type T, if it lies inside the buffer.
template <typename T>
inline void mupti_op_record(const uint8_t* buffer, size_t valid, const mupti::Activity* r) {
  if (!mupti_inside<T>(buffer, valid, r)) {
    ++mupti_join().skipped;
    return;
  }
  const auto* op = reinterpret_cast<const T*>(r);
  mupti_op_times(op->correlationId, op->start, op->end);
}

inline void mupti_binding(uint32_t correlation_id, uint32_t external_kind, uint64_t external_id) {
  MuptiJoin& j = mupti_join();
  if (external_kind != mupti::kExternalCorrelationKindCustom0 || external_id == 0) {
    ++j.skipped;
    return;
  }
  if (auto it = j.times_of.find(correlation_id); it != j.times_of.end()) {
    activity_deliver(RuntimeId::kMusa, external_id, it->second.first, it->second.second);
    j.joined.add(correlation_id, external_id);
    j.times_of.erase(it);
    return;
  }
  if (j.external_of.size() >= kMuptiMaxWaiting) j.external_of.clear();
  j.external_of[correlation_id] = external_id;
}

// On the thread that flushed (prof's harvester) or MUPTI's. Never calls the runtime.
inline void mupti_buffer_completed(mupti::Context, uint32_t, uint8_t* buffer, size_t size,
                                   size_t valid) {
  if (buffer == nullptr) return;
  if (valid > size) valid = size;
  MuptiJoin& j = mupti_join();
  pthread_mutex_lock(&j.mutex);
  mupti::Activity* r = nullptr;
  const uint8_t* last = nullptr;
  while (g_mupti.next_record(buffer, valid, &r) == mupti::kSuccess && r != nullptr) {
    // A walk that does not move forward or leaves the buffer is not one prof can follow.
    const auto* at = reinterpret_cast<const uint8_t*>(r);
    if (at <= last || !mupti_inside<mupti::Activity>(buffer, valid, r)) break;
    last = at;
    switch (r->kind) {
      case mupti::kActivityKindExternalCorrelation:
        if (mupti_inside<mupti::ActivityExternalCorrelation>(buffer, valid, r)) {
          const auto* e = reinterpret_cast<const mupti::ActivityExternalCorrelation*>(r);
          mupti_binding(e->correlationId, e->externalKind, e->externalId);
        } else
          ++j.skipped;
        break;
      case mupti::kActivityKindKernel:
      case mupti::kActivityKindConcurrentKernel:
        mupti_op_record<mupti::ActivityKernel6>(buffer, valid, r);
        break;
      case mupti::kActivityKindMemcpy:
        mupti_op_record<mupti::ActivityMemcpy4>(buffer, valid, r);
        break;
      case mupti::kActivityKindMemset:
        mupti_op_record<mupti::ActivityMemset3>(buffer, valid, r);
        break;
      default: ++j.skipped;  // API records (RUNTIME), or a kind numbered otherwise than assumed
    }
  }
  if (j.spare_count < kMuptiSpareBuffers) {
    j.spare[j.spare_count++] = buffer;
    buffer = nullptr;
  }
  pthread_mutex_unlock(&j.mutex);
  std::free(buffer);
}

// libmupti.so loaded beside the runtime (plain dlopen: prof hooks only dlsym and dlvsym, and
// looks up with the real ones). CUPTI emits EXTERNAL_CORRELATION records with API records only,
// so RUNTIME is enabled too; its records are skipped.
inline bool activity_open() {
  void* lib = dlopen("libmupti.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  auto sym = [lib](const char* name) { return real_dlsym(lib, name); };
  auto register_callbacks =
      reinterpret_cast<mupti::ActivityRegisterCallbacksFn>(sym("muptiActivityRegisterCallbacks"));
  auto enable = reinterpret_cast<mupti::ActivityEnableFn>(sym("muptiActivityEnable"));
  auto disable = reinterpret_cast<mupti::ActivityDisableFn>(sym("muptiActivityDisable"));
  MuptiFunctions f;
  f.flush_all = reinterpret_cast<mupti::ActivityFlushAllFn>(sym("muptiActivityFlushAll"));
  f.next_record =
      reinterpret_cast<mupti::ActivityGetNextRecordFn>(sym("muptiActivityGetNextRecord"));
  f.push = reinterpret_cast<mupti::ActivityPushExternalCorrelationIdFn>(
      sym("muptiActivityPushExternalCorrelationId"));
  f.pop = reinterpret_cast<mupti::ActivityPopExternalCorrelationIdFn>(
      sym("muptiActivityPopExternalCorrelationId"));
  if (register_callbacks == nullptr || enable == nullptr || f.flush_all == nullptr ||
      f.next_record == nullptr || f.push == nullptr || f.pop == nullptr) {
    dlclose(lib);
    return false;
  }
  // A MUPTI without external correlation (kineto's port notes one) would bind no op to prof's id.
  if (f.push(mupti::kExternalCorrelationKindCustom0, 1) != mupti::kSuccess ||
      f.pop(mupti::kExternalCorrelationKindCustom0, nullptr) != mupti::kSuccess) {
    dlclose(lib);
    return false;
  }
  g_mupti = f;
  if (register_callbacks(mupti_buffer_requested, mupti_buffer_completed) != mupti::kSuccess)
    return false;
  constexpr uint32_t kKinds[] = {mupti::kActivityKindExternalCorrelation,
                                 mupti::kActivityKindRuntime, mupti::kActivityKindConcurrentKernel,
                                 mupti::kActivityKindMemcpy, mupti::kActivityKindMemset};
  for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; ++i) {
    if (enable(kKinds[i]) == mupti::kSuccess) continue;
    // Some reports without the rest would leave ops waiting for ever: all or none.
    if (disable != nullptr)
      for (size_t k = 0; k < i; ++k) disable(kKinds[k]);
    return false;
  }
  return true;
}
inline void activity_push(uint64_t correlation_id) {
  g_mupti.push(mupti::kExternalCorrelationKindCustom0, correlation_id);
}
inline void activity_pop() { g_mupti.pop(mupti::kExternalCorrelationKindCustom0, nullptr); }
// Flag 0: completed records only. A forced flush would also hand back records of ops still on
// the device, without their end.
inline void activity_flush() { g_mupti.flush_all(mupti::kActivityFlagNone); }
}  // namespace musa_timing

inline constexpr TimingAdapter kMusaTiming{
    RuntimeId::kMusa,
    musaSuccess,
    musaErrorNotReady,
    musa_timing::stream_create,
    musa_timing::stream_destroy,
    musa_timing::event_create,
    musa_timing::event_destroy,
    musa_timing::event_record,
    musa_timing::event_query,
    musa_timing::event_synchronize,
    musa_timing::event_elapsed_ms,
    musa_timing::stream_is_capturing,
    musa_timing::set_device,
    true,
    musa_timing::kUnhookedExports,
    false,  // the table is not checked against a real library's exports
    musa_timing::activity_open,
    musa_timing::activity_push,
    musa_timing::activity_pop,
    musa_timing::activity_flush};

struct MusaAdapter {
  using Status = musaError_t;
  using Stream = musaStream_t;
  static constexpr RuntimeId kRuntime = RuntimeId::kMusa;
  static constexpr Status kSuccess = musaSuccess;
  static constexpr Status kNoLibrary =
      musaErrorInitializationError;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset =
      ApiId::musaDeviceReset;                       // destroys every event: flush timing first
  static constexpr ApiId kFinalize = kDeviceReset;  // no separate teardown call
  static constexpr ApiId kCaptureBegin =
      ApiId::musaStreamBeginCapture;  // interpose/stream_capture.hpp
  static constexpr ApiId kCaptureEnd = ApiId::musaStreamEndCapture;
  static constexpr bool capture_ended(Status s) {
    return s == musaSuccess || s == musaErrorStreamCaptureInvalidated;
  }
  static constexpr const TimingAdapter& kTiming = kMusaTiming;
};

}  // namespace prof::interpose
