// The CNRT face of the simulated device: libcnrt.so (Cambricon MLUs). Each cnrt* export translates
// its handles, enums and error codes onto the shared model (whose entry points speak HIP's
// vocabulary and stay local to this library) and keeps CNRT's last-error rule. Queues are the
// model's streams, notifiers its events, MLUs its devices: nothing here schedules, times or copies.
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "sim/last_error.hpp"
#include "sim/runtime.hpp"

#pragma GCC visibility push(default)
#include "runtimes/cnrt/cnrt_runtime_decls.hpp"
#pragma GCC visibility pop

namespace prof::sim {
namespace {

// CNRT's rule (cnrt.h: "returns the last error ... produced by any of the runtime calls in the
// same thread and resets it to cnrtSuccess"): a failed call sets it; success and a query's
// cnrtErrorBusy (an answer: the work is still running) leave it.
thread_local LastError<cnrtRet_t, cnrtSuccess, cnrtErrorBusy, LastErrorRule::kFailuresOnly>
    t_last_error;

// The model's (HIP's) codes in CNRT's numbering.
cnrtRet_t cnrt_code(hipError_t e) noexcept {
  switch (e) {
    case hipSuccess: return cnrtSuccess;
    case hipErrorInvalidValue:
    case hipErrorInvalidPitchValue:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidConfiguration: return cnrtErrorArgsInvalid;
    case hipErrorOutOfMemory: return cnrtErrorNoMem;
    case hipErrorNotInitialized: return cnrtErrorInit;
    case hipErrorInvalidMemcpyDirection: return cnrtErrorMemcpyDirectionInvalid;
    case hipErrorMissingConfiguration:
    case hipErrorInvalidDeviceFunction: return cnrtErrorInvalidKernel;
    case hipErrorNoDevice: return cnrtErrorNoDevice;
    case hipErrorInvalidDevice: return cnrtErrorDeviceInvalid;
    case hipErrorInvalidHandle: return cnrtErrorInvalidResourceHandle;
    case hipErrorIllegalState: return cnrtErrorIllegalState;
    case hipErrorNotFound: return cnrtErrorNotFound;
    case hipErrorNotReady: return cnrtErrorBusy;  // what CNRT's queries answer while work runs
    case hipErrorNotSupported: return cnrtErrorNotSupport;
    case hipErrorStreamCaptureUnsupported: return cnrtErrorQueueCaptureUnsupported;
    case hipErrorStreamCaptureInvalidated: return cnrtErrorQueueCaptureInvalidated;
    case hipErrorStreamCaptureMerge: return cnrtErrorQueueCaptureMerged;
    case hipErrorStreamCaptureUnmatched: return cnrtErrorQueueCaptureUnmatched;
    case hipErrorStreamCaptureIsolation: return cnrtErrorQueueCaptureIsolation;
    default: return cnrtErrorUnknown;
  }
}
cnrtRet_t done(cnrtRet_t ret) noexcept { return t_last_error.note(ret); }
cnrtRet_t done(hipError_t ret) noexcept { return done(cnrt_code(ret)); }

// NULL and cnrtQueueLegacy (2) are the legacy default queue, the model's null stream;
// cnrtQueuePerThread (1) is the model's per-thread stream (HIP numbers it 2).
hipStream_t stream_of(cnrtQueue_t q) noexcept {
  if (q == cnrtQueueLegacy) return nullptr;
  if (q == cnrtQueuePerThread) return hipStreamPerThread;
  return reinterpret_cast<hipStream_t>(q);
}
hipEvent_t event_of(cnrtNotifier_t n) noexcept { return reinterpret_cast<hipEvent_t>(n); }

// CNRT's directions 0..5 as the model's copy kinds; anything else is not a direction.
bool kind_of(cnrtMemTransDir_t dir, hipMemcpyKind& kind) noexcept {
  switch (dir) {
    case cnrtMemcpyHostToDev: kind = hipMemcpyHostToDevice; return true;
    case cnrtMemcpyDevToDev: kind = hipMemcpyDeviceToDevice; return true;
    case cnrtMemcpyDevToHost: kind = hipMemcpyDeviceToHost; return true;
    case cnrtMemcpyHostToHost: kind = hipMemcpyHostToHost; return true;
    case cnrtMemcpyPeerToPeer: kind = hipMemcpyDeviceToDevice; return true;
    case cnrtMemcpyNoDirection: kind = hipMemcpyDefault; return true;
  }
  return false;
}

// A notifier's creation flags decide which of its timings exist: CNRT_NOTIFIER_DISABLE_TIMING_SW
// takes the software timestamps (cnrtNotifierElapsedTime), _ALL both.
std::mutex g_flags_lock;
std::unordered_map<cnrtNotifier_t, unsigned>& notifier_flags() {
  static auto* flags =
      new std::unordered_map<cnrtNotifier_t, unsigned>;  // never destroyed (docs/sim.md)
  return *flags;
}
unsigned flags_of(cnrtNotifier_t n) {
  std::lock_guard<std::mutex> guard(g_flags_lock);
  auto it = notifier_flags().find(n);
  return it == notifier_flags().end() ? 0u : it->second;
}

// cnrtFunctionType_t values the device runs: a Block task on one core, UnionN on 4N cores.
bool valid_function_type(cnrtFunctionType_t t) noexcept {
  switch (t) {
    case cnrtFuncTypeBlock:
    case cnrtFuncTypeBlock1:
    case cnrtFuncTypeUnion1:
    case cnrtFuncTypeUnion2:
    case cnrtFuncTypeUnion4:
    case cnrtFuncTypeUnion8:
    case cnrtFuncTypeUnion16: return true;
    default: return false;
  }
}

// Exported functions never call each other (that would go through the PLT, and so through a
// profiler's hooks, as a second call): the shared bodies are these.
cnrtRet_t create_notifier(cnrtNotifier_t* pNotifier, unsigned int flags) noexcept {
  constexpr unsigned kKnown = CNRT_NOTIFIER_DISABLE_TIMING_SW | CNRT_NOTIFIER_DISABLE_TIMING_ALL |
                              CNRT_NOTIFIER_INTERPROCESS;
  if (pNotifier == nullptr || (flags & ~kKnown) != 0) return done(cnrtErrorArgsInvalid);
  // An interprocess notifier must not record timestamps.
  if ((flags & CNRT_NOTIFIER_INTERPROCESS) && !(flags & CNRT_NOTIFIER_DISABLE_TIMING_ALL))
    return done(cnrtErrorArgsInvalid);
  const hipError_t ret = hipEventCreate(reinterpret_cast<hipEvent_t*>(pNotifier));
  if (ret == hipSuccess) {
    std::lock_guard<std::mutex> guard(g_flags_lock);
    notifier_flags()[*pNotifier] = flags;
  }
  return done(ret);
}

cnrtRet_t memcpy_async(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                       cnrtMemTransDir_t dir) noexcept {
  hipMemcpyKind kind;
  if (!kind_of(dir, kind)) return done(cnrtErrorMemcpyDirectionInvalid);
  return done(hipMemcpyAsync(dst, src, bytes, kind, stream_of(queue)));
}

constexpr ErrorText<cnrtRet_t> kErrors[] = {
    {cnrtSuccess, "cnrtSuccess", "The API call returns with no errors."},
    {cnrtErrorNotReady, "cnrtErrorNotReady", "The device or resource requested is busy now."},
    {cnrtErrorInit, "cnrtErrorInit", "Initialization of CNRT fails."},
    {cnrtErrorNoDevice, "cnrtErrorNoDevice", "No device is found."},
    {cnrtErrorDeviceInvalid, "cnrtErrorDeviceInvalid",
     "The device ordinal passed to the API is out of range."},
    {cnrtErrorArgsInvalid, "cnrtErrorArgsInvalid",
     "One of the parameters passed to the API is invalid or out of range."},
    {cnrtErrorNoMem, "cnrtErrorNoMem", "There is insufficient MLU device memory."},
    {cnrtErrorInvalidResourceHandle, "cnrtErrorInvalidResourceHandle",
     "The resource handle passed to the API is invalid."},
    {cnrtErrorIllegalState, "cnrtErrorIllegalState",
     "A resource required by the API is not in a valid state."},
    {cnrtErrorNotSupport, "cnrtErrorNotSupport", "The feature is not supported now."},
    {cnrtErrorNotFound, "cnrtErrorNotFound", "Specific resources are not found."},
    {cnrtErrorInvalidKernel, "cnrtErrorInvalidKernel", "The kernel handle is invalid."},
    {cnrtErrorQueueCaptureUnsupported, "cnrtErrorQueueCaptureUnsupported",
     "The operation is not permitted when the queue is capturing."},
    {cnrtErrorQueueCaptureInvalidated, "cnrtErrorQueueCaptureInvalidated",
     "The current capture sequence on the queue has been invalidated due to previous error."},
    {cnrtErrorQueueCaptureMerged, "cnrtErrorQueueCaptureMerged",
     "Two independent capture sequences are merged."},
    {cnrtErrorQueueCaptureIsolation, "cnrtErrorQueueCaptureIsolation",
     "A queue in capture sequence is trying to create a dependency which crosses the capture "
     "boundary."},
    {cnrtErrorQueueCaptureUnmatched, "cnrtErrorQueueCaptureUnmatched",
     "The queue in capture sequence is not the initially captured one."},
    {cnrtErrorMemcpyDirectionInvalid, "cnrtErrorMemcpyDirectionInvalid",
     "The memory copying direction passed to the API is not in cnrtMemTransDir_t."},
    {cnrtErrorBusy, "cnrtErrorBusy", "The device or resource is busy."},
    {cnrtErrorUnknown, "cnrtErrorUnknown", "Unknown error."},
};

}  // namespace
}  // namespace prof::sim

using namespace prof::sim;

// ---- device ---------------------------------------------------------------------------------
cnrtRet_t cnrtGetDeviceCount(unsigned int* pCount) {
  int count = 0;
  if (pCount == nullptr) return done(cnrtErrorArgsInvalid);
  const hipError_t ret = hipGetDeviceCount(&count);
  if (ret == hipSuccess) *pCount = static_cast<unsigned>(count);
  return done(ret);
}
cnrtRet_t cnrtSetDevice(int ordinal) { return done(hipSetDevice(ordinal)); }
cnrtRet_t cnrtGetDevice(int* pOrdinal) { return done(hipGetDevice(pOrdinal)); }
cnrtRet_t cnrtSyncDevice(void) { return done(hipDeviceSynchronize()); }
cnrtRet_t cnrtDeviceReset(void) { return done(hipDeviceReset()); }

cnrtRet_t cnrtGetDeviceProperties_V3(cnrtDeviceProp_t* prop, int device) {
  hipDeviceProp_t model;
  if (prop == nullptr) return done(cnrtErrorArgsInvalid);
  const hipError_t ret = hipGetDeviceProperties(&model, device);
  if (ret != hipSuccess) return done(ret);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, "prof simulated MLU", sizeof prop->name - 1);
  prop->totalMem = static_cast<int>(model.totalGlobalMem >> 20);
  prop->totalGlobalMemSize = model.totalGlobalMem;
  prop->availableGlobalMemorySize =
      static_cast<int>((model.totalGlobalMem - allocated_device_bytes(device)) >> 20);
  for (int i = 0; i < 3; ++i) prop->maxDim[i] = model.maxGridSize[i];
  prop->ipuClockRate = model.clockRate;
  prop->major = 5;  // an MLU500-class device (ISA 5xx)
  prop->minor = 0;
  prop->ISAVersion = 592;
  prop->clusterCount = model.multiProcessorCount / 4;
  prop->McorePerCluster = 4;
  prop->maxClusterCountPerUnionTask = 16;
  prop->maxQueueSize = 4096;
  prop->maxNotifierSize = 65536;
  prop->queuePrioritiesSupported = 1;
  prop->FP16ComputingSupported = 1;
  prop->INT8ComputingSupported = 1;
  prop->BF16ComputingSupported = 1;
  return done(cnrtSuccess);
}

// ---- memory ---------------------------------------------------------------------------------
cnrtRet_t cnrtMalloc(void** pPtr, size_t bytes) { return done(hipMalloc(pPtr, bytes)); }
cnrtRet_t cnrtFree(void* ptr) { return done(hipFree(ptr)); }
cnrtRet_t cnrtHostMalloc(void** pPtr, size_t bytes) { return done(hipHostMalloc(pPtr, bytes, 0)); }
cnrtRet_t cnrtFreeHost(void* ptr) { return done(hipHostFree(ptr)); }
cnrtRet_t cnrtMemset(void* ptr, int value, size_t bytes) {
  return done(hipMemset(ptr, value, bytes));
}
cnrtRet_t cnrtMemsetAsync(void* ptr, int value, size_t bytes, cnrtQueue_t queue) {
  return done(hipMemsetAsync(ptr, value, bytes, stream_of(queue)));
}
cnrtRet_t cnrtMemcpy(void* dst, void* src, size_t bytes, cnrtMemTransDir_t dir) {
  hipMemcpyKind kind;
  if (!kind_of(dir, kind)) return done(cnrtErrorMemcpyDirectionInvalid);
  return done(hipMemcpy(dst, src, bytes, kind));
}
cnrtRet_t cnrtMemcpyAsync(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                          cnrtMemTransDir_t dir) {
  return memcpy_async(dst, src, bytes, queue, dir);
}
cnrtRet_t cnrtMemcpyAsync_V2(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir) {
  return memcpy_async(dst, src, bytes, queue, dir);
}
cnrtRet_t cnrtMemcpyAsync_V3(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir) {
  return memcpy_async(dst, src, bytes, queue, dir);
}
cnrtRet_t cnrtMemcpyPeer(void* dst, int dstDev, void* src, int srcDev, size_t bytes) {
  return done(hipMemcpyPeer(dst, dstDev, src, srcDev, bytes));
}
cnrtRet_t cnrtMemcpyPeerAsync(void* dst, int dstDev, void* src, int srcDev, size_t bytes,
                              cnrtQueue_t queue) {
  return done(hipMemcpyPeerAsync(dst, dstDev, src, srcDev, bytes, stream_of(queue)));
}
// Queue-ordered allocation: the memory exists from the call on (an early, valid point in the
// queue's order); a free lets the queue's work finish first (the caller waits: a simplification).
cnrtRet_t cnrtMemAllocAsync(void** pPtr, size_t byteSize, cnrtQueue_t queue) {
  if (resolve_stream(stream_of(queue)) == nullptr) return done(cnrtErrorInvalidResourceHandle);
  return done(hipMalloc(pPtr, byteSize));
}
cnrtRet_t cnrtMemFreeAsync(void* mluAddr, cnrtQueue_t hqueue) {
  if (resolve_stream(stream_of(hqueue)) == nullptr) return done(cnrtErrorInvalidResourceHandle);
  if (const hipError_t ret = hipStreamSynchronize(stream_of(hqueue)); ret != hipSuccess)
    return done(ret);
  return done(hipFree(mluAddr));
}

// ---- queues ---------------------------------------------------------------------------------
cnrtRet_t cnrtQueueCreate(cnrtQueue_t* pQueue) {
  return done(hipStreamCreate(reinterpret_cast<hipStream_t*>(pQueue)));
}
cnrtRet_t cnrtQueueCreateWithPriority(cnrtQueue_t* pQueue, unsigned int flags, int priority) {
  return done(hipStreamCreateWithPriority(reinterpret_cast<hipStream_t*>(pQueue), flags, priority));
}
// The implicit queues (default, legacy, per-thread) cannot be destroyed.
cnrtRet_t cnrtQueueDestroy(cnrtQueue_t queue) {
  if (queue == nullptr || queue == cnrtQueueLegacy || queue == cnrtQueuePerThread)
    return done(cnrtErrorInvalidResourceHandle);
  return done(hipStreamDestroy(stream_of(queue)));
}
cnrtRet_t cnrtQueueSync(cnrtQueue_t queue) { return done(hipStreamSynchronize(stream_of(queue))); }
cnrtRet_t cnrtQueueQuery(cnrtQueue_t queue) { return done(hipStreamQuery(stream_of(queue))); }
cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag) {
  if (flag > 1) return done(cnrtErrorArgsInvalid);  // CNRT_NOTIFIER_WAIT_DEFAULT or _EXTERNAL
  return done(hipStreamWaitEvent(stream_of(queue), event_of(notifier), 0));
}
cnrtRet_t cnrtQueueIsCapturing(cnrtQueue_t queue, enum cnrtQueueCaptureStatus* pStatus) {
  return done(
      hipStreamIsCapturing(stream_of(queue), reinterpret_cast<hipStreamCaptureStatus*>(pStatus)));
}

// ---- notifiers ------------------------------------------------------------------------------
cnrtRet_t cnrtNotifierCreateWithFlags(cnrtNotifier_t* pNotifier, unsigned int flags) {
  return create_notifier(pNotifier, flags);
}
cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t* pNotifier) {
  return create_notifier(pNotifier, CNRT_NOTIFIER_DEFAULT);
}
cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier) {
  const hipError_t ret = hipEventDestroy(event_of(notifier));
  if (ret == hipSuccess) {
    std::lock_guard<std::mutex> guard(g_flags_lock);
    notifier_flags().erase(notifier);
  }
  return done(ret);
}
cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue) {
  return done(hipEventRecord(event_of(notifier), stream_of(queue)));
}
cnrtRet_t cnrtPlaceNotifierWithFlags(cnrtNotifier_t notifier, cnrtQueue_t queue,
                                     unsigned int flags) {
  if (flags > 1) return done(cnrtErrorArgsInvalid);  // CNRT_NOTIFIER_PLACE_DEFAULT or _EXTERNAL
  return done(hipEventRecord(event_of(notifier), stream_of(queue)));
}
cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier) {
  return done(hipEventSynchronize(event_of(notifier)));
}
cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier) {
  return done(hipEventQuery(event_of(notifier)));
}
// Milliseconds between the two notifiers' (software) timestamps.
cnrtRet_t cnrtNotifierElapsedTime(cnrtNotifier_t start, cnrtNotifier_t end, float* ms) {
  constexpr unsigned kNoSoftware =
      CNRT_NOTIFIER_DISABLE_TIMING_SW | CNRT_NOTIFIER_DISABLE_TIMING_ALL;
  if (((flags_of(start) | flags_of(end)) & kNoSoftware) != 0) return done(cnrtErrorArgsInvalid);
  return done(hipEventElapsedTime(ms, event_of(start), event_of(end)));
}
// Microseconds of device execution between two notifiers (the model has one clock, so it is the
// same span as ElapsedTime, in other units).
cnrtRet_t cnrtNotifierDuration(cnrtNotifier_t start, cnrtNotifier_t end, float* us) {
  if (((flags_of(start) | flags_of(end)) & CNRT_NOTIFIER_DISABLE_TIMING_ALL) != 0)
    return done(cnrtErrorArgsInvalid);
  if (us == nullptr) return done(cnrtErrorArgsInvalid);
  float ms = 0;
  const hipError_t ret = hipEventElapsedTime(&ms, event_of(start), event_of(end));
  if (ret == hipSuccess) *us = ms * 1000.0f;
  return done(ret);
}

// ---- launches -------------------------------------------------------------------------------
// The model times a kernel by its threads: dim.x * dim.y * dim.z tasks of `ktype` cores each.
cnrtRet_t cnrtInvokeKernel(const void* kernel, cnrtDim3_t dim, cnrtFunctionType_t ktype,
                           void** args, size_t reserved, cnrtQueue_t queue) {
  (void)reserved;
  if (kernel == nullptr) return done(cnrtErrorInvalidKernel);
  if (!valid_function_type(ktype) || dim.x == 0 || dim.y == 0 || dim.z == 0)
    return done(cnrtErrorArgsInvalid);
  return done(hipLaunchKernel(kernel, dim3{dim.x, dim.y, dim.z},
                              dim3{static_cast<uint32_t>(ktype), 1, 1}, args, 0, stream_of(queue)));
}
// A task topology entity is the model's executable graph.
cnrtRet_t cnrtTaskTopoEntityInvoke(cnrtTaskTopoEntity_t entity, cnrtQueue_t queue) {
  return done(hipGraphLaunch(reinterpret_cast<hipGraphExec_t>(entity), stream_of(queue)));
}

// ---- errors and version ---------------------------------------------------------------------
cnrtRet_t cnrtGetLastError(void) { return t_last_error.take(); }
cnrtRet_t cnrtPeekAtLastError(void) { return t_last_error.peek(); }
const char* cnrtGetErrorStr(cnrtRet_t error) {
  const ErrorText<cnrtRet_t>* t = find_error_text(kErrors, error);
  return t != nullptr ? t->text : "Unknown error.";
}
const char* cnrtGetErrorName(cnrtRet_t error) {
  const ErrorText<cnrtRet_t>* t = find_error_text(kErrors, error);
  return t != nullptr ? t->name : "cnrtErrorUnknown";
}
// CNRT 6.14.1, the header vendor-api.md quotes.
cnrtRet_t cnrtGetLibVersion(int* major, int* minor, int* patch) {
  if (major == nullptr || minor == nullptr || patch == nullptr) return done(cnrtErrorArgsInvalid);
  *major = 6;
  *minor = 14;
  *patch = 1;
  return cnrtSuccess;
}

// ---- the table holds the face to its prototypes ---------------------------------------------
namespace prof::sim {
namespace {
using AnyFunction = void (*)();
#define PROF_CNRT_API(name, ret, params, ...)                     \
  static_assert(std::is_same_v<decltype(&::name), ret(*) params>, \
                #name " differs from cnrt_api.def");
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
[[gnu::used]] const AnyFunction kEveryExport[] = {
#define PROF_CNRT_API(name, ...) reinterpret_cast<AnyFunction>(&::name),
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
};
}  // namespace
}  // namespace prof::sim
