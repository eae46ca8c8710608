// HIP's adapter: what the generic hook shape (interpose/hook_shape.hpp) and device timing need to
// know about HIP beyond its table. Compiled into the preload library only.
#pragma once
#include "interpose/hook_support.hpp"
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/hip/hip_abi.hpp"
#include "runtimes/hip/hip_activity.hpp"

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

// The `_spt` functions act on the per-thread default stream when given the null stream.
inline hipStream_t prof_spt_stream(hipStream_t stream) {
  return stream ? stream : hipStreamPerThread;
}

// Grid of a launch given in threads (hipExtModuleLaunchKernel's global work size): blocks per axis.
inline dim3 prof_hip_grid(uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx, uint32_t ly,
                          uint32_t lz) {
  return dim3{lx ? gx / lx : 0, ly ? gy / ly : 0, lz ? gz / lz : 0};
}

// Bytes and direction of the copies described by a structure (read before the call returns:
// the structure is the caller's and outlives the call).
inline uint64_t prof_hip_bytes(hipExtent e) {
  return uint64_t{e.width} * e.height * (e.depth ? e.depth : 1);
}
inline uint64_t prof_hip_bytes(const hipMemcpy3DParms* p) {
  return p ? prof_hip_bytes(p->extent) : 0;
}
inline uint64_t prof_hip_bytes(const HIP_MEMCPY3D* p) {
  return p ? uint64_t{p->WidthInBytes} * p->Height * (p->Depth ? p->Depth : 1) : 0;
}
inline uint64_t prof_hip_bytes(const hip_Memcpy2D* p) {
  return p ? uint64_t{p->WidthInBytes} * p->Height : 0;
}
inline CopyDirection prof_hip_direction(const hipMemcpy3DParms* p) {
  return p ? prof_direction(p->kind) : CopyDirection::kUnknown;
}
constexpr CopyDirection prof_hip_direction(hipMemoryType src, hipMemoryType dst) {
  const bool src_host = src == hipMemoryTypeHost, dst_host = dst == hipMemoryTypeHost;
  if (src == hipMemoryTypeUnified || dst == hipMemoryTypeUnified) return CopyDirection::kDefault;
  if (src_host) return dst_host ? CopyDirection::kHostToHost : CopyDirection::kHostToDevice;
  return dst_host ? CopyDirection::kDeviceToHost : CopyDirection::kDeviceToDevice;
}
inline CopyDirection prof_hip_direction(const HIP_MEMCPY3D* p) {
  return p ? prof_hip_direction(p->srcMemoryType, p->dstMemoryType) : CopyDirection::kUnknown;
}
inline CopyDirection prof_hip_direction(const hip_Memcpy2D* p) {
  return p ? prof_hip_direction(p->srcMemoryType, p->dstMemoryType) : CopyDirection::kUnknown;
}

// Allocations whose size or pointer comes back in a structure.
template <typename Status>
inline uint64_t prof_hip_pitched_bytes(const hipPitchedPtr* p, hipExtent e, Status ret) {
  return ret == 0 && p ? uint64_t{p->pitch} * e.height * (e.depth ? e.depth : 1) : 0;
}
template <typename Status>
inline uint64_t prof_hip_pitched_ptr(const hipPitchedPtr* p, Status ret) {
  return ret == 0 && p ? reinterpret_cast<uintptr_t>(p->ptr) : 0;
}
constexpr uint64_t prof_hip_format_bytes(hipArray_Format f) {
  switch (f) {
    case HIP_AD_FORMAT_UNSIGNED_INT8:
    case HIP_AD_FORMAT_SIGNED_INT8: return 1;
    case HIP_AD_FORMAT_UNSIGNED_INT16:
    case HIP_AD_FORMAT_SIGNED_INT16:
    case HIP_AD_FORMAT_HALF: return 2;
    default: return 4;
  }
}
inline uint64_t prof_hip_array_bytes(const hipChannelFormatDesc* d, size_t w, size_t h,
                                     size_t depth) {
  if (!d) return 0;
  const uint64_t element = (uint64_t(d->x) + uint64_t(d->y) + uint64_t(d->z) + uint64_t(d->w)) / 8;
  return element * w * (h ? h : 1) * (depth ? depth : 1);
}
inline uint64_t prof_hip_array_bytes(const HIP_ARRAY_DESCRIPTOR* d) {
  return d ? prof_hip_format_bytes(d->Format) * d->NumChannels * d->Width *
                 (d->Height ? d->Height : 1)
           : 0;
}
inline uint64_t prof_hip_array_bytes(const HIP_ARRAY3D_DESCRIPTOR* d) {
  return d ? prof_hip_format_bytes(d->Format) * d->NumChannels * d->Width *
                 (d->Height ? d->Height : 1) * (d->Depth ? d->Depth : 1)
           : 0;
}

// Multi-device launches are one record, timed on the first entry's stream, named after its kernel.
inline hipStream_t prof_hip_first_launch_stream(const hipLaunchParams* list, int n) {
  return list && n > 0 ? list[0].stream : nullptr;
}
inline void hip_on_multi_launch(const HookContext& ctx, const hipLaunchParams* list,
                                int n) noexcept {
  if (list && n > 0)
    on_launch(ctx, list[0].func, list[0].gridDim, list[0].blockDim, list[0].sharedMem);
}

// hipConfigureCall pushes a launch configuration that hipLaunchByPtr pops (the runtime keeps it per
// thread): prof keeps the same stack, so the launch is timed on its stream and given its geometry.
struct HipCallConfiguration {
  dim3 grid, block;
  size_t shared_mem_bytes;
  hipStream_t stream;
};
inline constexpr int kHipCallConfigurationDepth = 8;
inline __attribute__((tls_model("initial-exec"))) thread_local HipCallConfiguration
    t_hip_call_configuration[kHipCallConfigurationDepth];
inline __attribute__((tls_model("initial-exec"))) thread_local int t_hip_call_configuration_count =
    0;
inline void prof_hip_on_configure_call(dim3 grid, dim3 block, size_t shared_mem_bytes,
                                       hipStream_t stream) noexcept {
  const int i = t_hip_call_configuration_count;
  if (i < kHipCallConfigurationDepth)
    t_hip_call_configuration[i] = {grid, block, shared_mem_bytes, stream};
  ++t_hip_call_configuration_count;
}
inline hipStream_t prof_hip_configured_stream() noexcept {
  const int i = t_hip_call_configuration_count - 1;
  return i >= 0 && i < kHipCallConfigurationDepth ? t_hip_call_configuration[i].stream : nullptr;
}
inline void hip_on_launch_by_ptr(const HookContext& ctx, const void* function) noexcept {
  const int i = t_hip_call_configuration_count - 1;
  if (i < 0) return;
  if (i < kHipCallConfigurationDepth) {
    const HipCallConfiguration& c = t_hip_call_configuration[i];
    on_launch(ctx, function, c.grid, c.block, c.shared_mem_bytes);
  }
  --t_hip_call_configuration_count;
}
#define prof_hip_on_multi_launch(list, n) hip_on_multi_launch(ctx, list, n)
#define prof_hip_on_launch_by_ptr(function) hip_on_launch_by_ptr(ctx, function)

namespace hip_timing {
inline int stream_create(void** s) {
  return call_real<ApiId::hipStreamCreateWithFlags>(reinterpret_cast<hipStream_t*>(s),
                                                    hipStreamNonBlocking);
}
inline int stream_destroy(void* s) {
  return call_real<ApiId::hipStreamDestroy>(static_cast<hipStream_t>(s));
}
inline int event_create(void** e) {
  return call_real<ApiId::hipEventCreateWithFlags>(reinterpret_cast<hipEvent_t*>(e),
                                                   hipEventDefault);
}
inline int event_destroy(void* e) {
  return call_real<ApiId::hipEventDestroy>(static_cast<hipEvent_t>(e));
}
inline int event_record(void* e, void* s) {
  return call_real<ApiId::hipEventRecord>(static_cast<hipEvent_t>(e), static_cast<hipStream_t>(s));
}
inline int event_query(void* e) {
  return call_real<ApiId::hipEventQuery>(static_cast<hipEvent_t>(e));
}
inline int event_synchronize(void* e) {
  return call_real<ApiId::hipEventSynchronize>(static_cast<hipEvent_t>(e));
}
inline int event_elapsed_ms(float* ms, void* a, void* b) {
  return call_real<ApiId::hipEventElapsedTime>(ms, static_cast<hipEvent_t>(a),
                                               static_cast<hipEvent_t>(b));
}
inline int set_device(int device) { return call_real<ApiId::hipSetDevice>(device); }
inline int stream_is_capturing(void* s, bool* capturing) {
  auto fn = real<ApiId::hipStreamIsCapturing>();
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  // A runtime without capture support captures nothing.
  const int ret = fn ? static_cast<int>(fn(static_cast<hipStream_t>(s), &status)) : hipSuccess;
  *capturing = status != hipStreamCaptureStatusNone;
  return ret;
}
// Exports of later HIP versions (5.3 on) that the table (HIP 5.2's exports) has no rows for; the
// first two begin captures.
inline constexpr const char* kUnhookedExports[] = {
    "hipStreamBeginCapture_spt", "hipStreamBeginCaptureToGraph", "hipGraphLaunch_spt",
    "hipLaunchHostFunc_spt", nullptr};
// The activity interface ROCm 5.2 offers roctracer: each kernel's and copy's device times, stamped
// by the device (records: runtimes/hip/hip_activity.hpp).
inline void activity_id(activity_correlation_id_t id) { activity_note_id(id); }
inline void activity_op(uint32_t, void* record, void*) {
  const auto* r = static_cast<const hip_activity_record_t*>(record);
  if (r != nullptr && r->domain == kActivityDomainHipOps)
    activity_deliver(RuntimeId::kHip, r->correlation_id, r->begin_ns, r->end_ns);
}
inline bool activity_open() {
  auto init = real<ApiId::hipInitActivityCallback>();
  auto enable = real<ApiId::hipEnableActivityCallback>();
  if (init == nullptr || enable == nullptr) return false;
  init(reinterpret_cast<void*>(&activity_id), reinterpret_cast<void*>(&activity_op), nullptr);
  return enable(kHipVdiOpIdDispatch, true) && enable(kHipVdiOpIdCopy, true);
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
                                          hip_timing::set_device,
                                          true,
                                          hip_timing::kUnhookedExports,
                                          true,
                                          hip_timing::activity_open};

struct HipAdapter {
  using Status = hipError_t;
  using Stream = hipStream_t;
  static constexpr RuntimeId kRuntime = RuntimeId::kHip;
  static constexpr Status kSuccess = hipSuccess;
  static constexpr Status kNoLibrary =
      hipErrorNotInitialized;  // no loaded library defines the function
  static constexpr ApiId kDeviceReset =
      ApiId::hipDeviceReset;                        // destroys every event: flush timing first
  static constexpr ApiId kFinalize = kDeviceReset;  // no separate teardown call
  // Capture control (--trace-start off): recording runs from hipProfilerStart to hipProfilerStop.
  static constexpr ApiId kProfilerStart = ApiId::hipProfilerStart;
  static constexpr ApiId kProfilerStop = ApiId::hipProfilerStop;
  // Stream capture (interpose/stream_capture.hpp): an end that succeeded or found the capture
  // invalidated has ended it; any other error leaves it going.
  static constexpr ApiId kCaptureBegin = ApiId::hipStreamBeginCapture;
  static constexpr ApiId kCaptureEnd = ApiId::hipStreamEndCapture;
  static constexpr bool capture_ended(Status s) {
    return s == hipSuccess || s == hipErrorStreamCaptureInvalidated;
  }
  static constexpr const TimingAdapter& kTiming = kHipTiming;
};

}  // namespace prof::interpose
