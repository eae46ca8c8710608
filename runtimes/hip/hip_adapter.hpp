// HIP's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about HIP beyond its table. Compiled into the preload library only.
#pragma once
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/hip/hip_abi.hpp"

namespace prof::interpose {

// Copy direction of a hipMemcpyKind (the `aux` of copies).
constexpr CopyDirection prof_direction(hipMemcpyKind kind) {
  switch (kind) {
    case hipMemcpyHostToHost: return CopyDirection::kHostToHost;
    case hipMemcpyHostToDevice: return CopyDirection::kHostToDevice;
    case hipMemcpyDeviceToHost: return CopyDirection::kDeviceToHost;
    case hipMemcpyDeviceToDevice: return CopyDirection::kDeviceToDevice;
    case hipMemcpyDefault: return CopyDirection::kDefault;
  }
  return CopyDirection::kUnknown;
}

namespace hip_timing {
#define PROF_CALL_REAL(id, ...)                    \
  auto fn = real<ApiId::id>();                     \
  return fn ? static_cast<int>(fn(__VA_ARGS__)) : TimingAdapter::kNoFunction
inline int stream_create(void** s) {
  PROF_CALL_REAL(hipStreamCreateWithFlags, reinterpret_cast<hipStream_t*>(s), hipStreamNonBlocking);
}
inline int stream_destroy(void* s) { PROF_CALL_REAL(hipStreamDestroy, static_cast<hipStream_t>(s)); }
inline int event_create(void** e) {
  PROF_CALL_REAL(hipEventCreateWithFlags, reinterpret_cast<hipEvent_t*>(e), hipEventDefault);
}
inline int event_destroy(void* e) { PROF_CALL_REAL(hipEventDestroy, static_cast<hipEvent_t>(e)); }
inline int event_record(void* e, void* s) {
  PROF_CALL_REAL(hipEventRecord, static_cast<hipEvent_t>(e), static_cast<hipStream_t>(s));
}
inline int event_query(void* e) { PROF_CALL_REAL(hipEventQuery, static_cast<hipEvent_t>(e)); }
inline int event_synchronize(void* e) { PROF_CALL_REAL(hipEventSynchronize, static_cast<hipEvent_t>(e)); }
inline int event_elapsed_ms(float* ms, void* a, void* b) {
  PROF_CALL_REAL(hipEventElapsedTime, ms, static_cast<hipEvent_t>(a), static_cast<hipEvent_t>(b));
}
inline int set_device(int device) { PROF_CALL_REAL(hipSetDevice, device); }
#undef PROF_CALL_REAL
inline int stream_is_capturing(void* s, bool* capturing) {
  auto fn = real<ApiId::hipStreamIsCapturing>();
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  // A runtime without capture support captures nothing.
  const int ret = fn ? static_cast<int>(fn(static_cast<hipStream_t>(s), &status)) : hipSuccess;
  *capturing = status != hipStreamCaptureStatusNone;
  return ret;
}
}  // namespace hip_timing

inline constexpr TimingAdapter kHipTiming{RuntimeId::kHip,
                                          hipSuccess,
                                          hipErrorNotReady,
                                          hip_timing::stream_create,
                                          hip_timing::stream_destroy,
                                          hip_timing::event_create,
                                          hip_timing::event_destroy,
                                          hip_timing::event_record,
                                          hip_timing::event_query,
                                          hip_timing::event_synchronize,
                                          hip_timing::event_elapsed_ms,
                                          hip_timing::stream_is_capturing,
                                          hip_timing::set_device};

struct HipAdapter {
  using Status = hipError_t;
  using Stream = hipStream_t;
  static constexpr RuntimeId kRuntime = RuntimeId::kHip;
  static constexpr Status kSuccess = hipSuccess;
  static constexpr Status kNoLibrary = hipErrorNotInitialized;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset = ApiId::hipDeviceReset;  // destroys every event: flush timing first
  static constexpr ApiId kFinalize = kDeviceReset;  // no separate teardown call
  // Capture control (--trace-start off): recording runs from hipProfilerStart to hipProfilerStop.
  static constexpr ApiId kProfilerStart = ApiId::hipProfilerStart;
  static constexpr ApiId kProfilerStop = ApiId::hipProfilerStop;
  static constexpr const TimingAdapter& kTiming = kHipTiming;
};

}  // namespace prof::interpose
