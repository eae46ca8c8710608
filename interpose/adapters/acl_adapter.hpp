// ACL's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about ACL beyond its table. Compiled into the preload library only.
#pragma once
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/acl/acl_abi.hpp"

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
  return status == ACL_EVENT_RECORDED_STATUS_COMPLETE ? ACL_SUCCESS : ACL_ERROR_RT_EVENT_NOT_COMPLETE;
}
inline int stream_is_capturing(void* s, bool* capturing) {
  auto fn = real<ApiId::aclmdlRICaptureGetInfo>();
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  aclmdlRI ri = nullptr;
  const int ret = fn ? fn(s, &status, &ri) : ACL_SUCCESS;
  *capturing = status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  return ret;
}
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
                                         nullptr};

struct AclAdapter {
  using Status = aclError;
  using Stream = aclrtStream;
  static constexpr RuntimeId kRuntime = RuntimeId::kAcl;
  static constexpr Status kSuccess = ACL_SUCCESS;
  static constexpr Status kNoLibrary = ACL_ERROR_UNINITIALIZE;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset = ApiId::aclrtResetDevice;  // destroys the device's events: flush timing first
  static constexpr ApiId kFinalize = ApiId::aclFinalize;  // after it no ACL call works: flush timing first
  // Capture into a model runtime instance (interpose/stream_capture.hpp). An end that succeeded,
  // or found the capture invalidated, has ended it; other errors (including a failure to build the
  // model after the capture ended) leave it counted, which only costs the query.
  static constexpr ApiId kCaptureBegin = ApiId::aclmdlRICaptureBegin;
  static constexpr ApiId kCaptureEnd = ApiId::aclmdlRICaptureEnd;
  static constexpr bool capture_ended(Status s) { return s == ACL_SUCCESS || s == ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED; }
  static constexpr const TimingAdapter& kTiming = kAclTiming;
};

}  // namespace prof::interpose
