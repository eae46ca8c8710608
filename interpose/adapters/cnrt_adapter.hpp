// CNRT's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about CNRT beyond its table. Compiled into the preload library only.
#pragma once
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/cnrt/cnrt_abi.hpp"

namespace prof::interpose {

// Copy direction of a cnrtMemTransDir_t (the `aux` of copies): CNRT's own numbering 0..5.
constexpr CopyDirection prof_direction(cnrtMemTransDir_t dir) {
  switch (dir) {
    case cnrtMemcpyHostToDev: return CopyDirection::kHostToDevice;
    case cnrtMemcpyDevToDev: return CopyDirection::kDeviceToDevice;
    case cnrtMemcpyDevToHost: return CopyDirection::kDeviceToHost;
    case cnrtMemcpyHostToHost: return CopyDirection::kHostToHost;
    case cnrtMemcpyPeerToPeer: return CopyDirection::kPeer;
    case cnrtMemcpyNoDirection: return CopyDirection::kDefault;
  }
  return CopyDirection::kUnknown;
}

// A CNRT launch's geometry in the kernels table: the task dimensions as the grid, and the
// function type (cores per task) as block.x.
constexpr dim3 cnrt_grid(cnrtDim3_t dim) { return dim3{dim.x, dim.y, dim.z}; }
constexpr dim3 cnrt_block(cnrtFunctionType_t ktype) {
  return dim3{static_cast<uint32_t>(ktype), 1, 1};
}

namespace cnrt_timing {
inline int stream_create(void** q) {
  return call_real<ApiId::cnrtQueueCreate>(reinterpret_cast<cnrtQueue_t*>(q));
}
inline int stream_destroy(void* q) {
  return call_real<ApiId::cnrtQueueDestroy>(static_cast<cnrtQueue_t>(q));
}
inline int event_create(void** n) {
  return call_real<ApiId::cnrtNotifierCreate>(reinterpret_cast<cnrtNotifier_t*>(n));
}
inline int event_destroy(void* n) {
  return call_real<ApiId::cnrtNotifierDestroy>(static_cast<cnrtNotifier_t>(n));
}
inline int event_record(void* n, void* q) {
  return call_real<ApiId::cnrtPlaceNotifier>(static_cast<cnrtNotifier_t>(n),
                                             static_cast<cnrtQueue_t>(q));
}
inline int event_query(void* n) {
  return call_real<ApiId::cnrtQueryNotifier>(static_cast<cnrtNotifier_t>(n));
}
inline int event_synchronize(void* n) {
  return call_real<ApiId::cnrtWaitNotifier>(static_cast<cnrtNotifier_t>(n));
}
// CNRT's order is (start, end, ms); milliseconds, as the timing algorithm wants.
inline int event_elapsed_ms(float* ms, void* a, void* b) {
  return call_real<ApiId::cnrtNotifierElapsedTime>(static_cast<cnrtNotifier_t>(a),
                                                   static_cast<cnrtNotifier_t>(b), ms);
}
inline int set_device(int device) { return call_real<ApiId::cnrtSetDevice>(device); }
inline int stream_is_capturing(void* q, bool* capturing) {
  auto fn = real<ApiId::cnrtQueueIsCapturing>();
  cnrtQueueCaptureStatus status = cnrtQueueCaptureStatusNone;
  const int ret = fn ? static_cast<int>(fn(static_cast<cnrtQueue_t>(q), &status)) : cnrtSuccess;
  *capturing = status != cnrtQueueCaptureStatusNone;
  return ret;
}
// Per-op device times from Cambricon's CNPAPI activity interface (libcnpapi.so), by external
// correlation: interpose/adapters/cnrt_activity.cpp.
bool activity_open();
void activity_push(uint64_t correlation_id);
void activity_pop();
void activity_flush();
}  // namespace cnrt_timing

// A notifier that has not completed answers cnrtErrorBusy (632014), not a "not ready".
inline constexpr TimingAdapter kCnrtTiming{RuntimeId::kCnrt,
                                           cnrtSuccess,
                                           cnrtErrorBusy,
                                           cnrt_timing::stream_create,
                                           cnrt_timing::stream_destroy,
                                           cnrt_timing::event_create,
                                           cnrt_timing::event_destroy,
                                           cnrt_timing::event_record,
                                           cnrt_timing::event_query,
                                           cnrt_timing::event_synchronize,
                                           cnrt_timing::event_elapsed_ms,
                                           cnrt_timing::stream_is_capturing,
                                           cnrt_timing::set_device,
                                           false,
                                           nullptr,
                                           false,
                                           cnrt_timing::activity_open,
                                           cnrt_timing::activity_push,
                                           cnrt_timing::activity_pop,
                                           cnrt_timing::activity_flush};

struct CnrtAdapter {
  using Status = cnrtRet_t;
  using Stream = cnrtQueue_t;
  static constexpr RuntimeId kRuntime = RuntimeId::kCnrt;
  static constexpr Status kSuccess = cnrtSuccess;
  static constexpr Status kNoLibrary = cnrtErrorInit;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset =
      ApiId::cnrtDeviceReset;                       // destroys every notifier: flush timing first
  static constexpr ApiId kFinalize = kDeviceReset;  // no separate teardown call
  static constexpr const TimingAdapter& kTiming = kCnrtTiming;
};

}  // namespace prof::interpose
