// MUSA's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about MUSA beyond its table. Compiled into the preload library only.
#pragma once
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/musa/musa_abi.hpp"

namespace prof::interpose {

// Copy direction of a musaMemcpyKind (the `aux` of copies): CUDA's numbering 0..4, assumed for MUSA.
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
inline constexpr const char* kUnhookedExports[] = {"musaStreamBeginCapture_ptsz", "musaStreamBeginCaptureToGraph",
                                                         "musaStreamBeginCaptureToGraph_ptsz", nullptr};
}  // namespace musa_timing

inline constexpr TimingAdapter kMusaTiming{RuntimeId::kMusa,
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
                                          false};  // the table is not checked against a real library's exports

struct MusaAdapter {
  using Status = musaError_t;
  using Stream = musaStream_t;
  static constexpr RuntimeId kRuntime = RuntimeId::kMusa;
  static constexpr Status kSuccess = musaSuccess;
  static constexpr Status kNoLibrary = musaErrorInitializationError;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset = ApiId::musaDeviceReset;  // destroys every event: flush timing first
  static constexpr ApiId kFinalize = kDeviceReset;  // no separate teardown call
  static constexpr ApiId kCaptureBegin = ApiId::musaStreamBeginCapture;  // interpose/stream_capture.hpp
  static constexpr ApiId kCaptureEnd = ApiId::musaStreamEndCapture;
  static constexpr bool capture_ended(Status s) { return s == musaSuccess || s == musaErrorStreamCaptureInvalidated; }
  static constexpr const TimingAdapter& kTiming = kMusaTiming;
};

}  // namespace prof::interpose
