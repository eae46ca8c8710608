// The MUSA face of the simulated device: libmusart.so.5. MUSA mirrors the CUDA runtime, and so
// does the model's own vocabulary (the HIP entry points in this folder, which the version script
// keeps local to this library), so each musa* export translates its arguments, calls the model
// and keeps CUDA's last-error rule. The model, its timing and its truth file are the shared ones:
// nothing here schedules, times or copies.
#include <cstring>
#include <type_traits>

#include "sim/last_error.hpp"
#include "sim/runtime.hpp"

#pragma GCC visibility push(default)
#include "runtimes/musa/musa_runtime_decls.hpp"
#pragma GCC visibility pop

namespace prof::sim {
namespace {

// CUDA's rule: a call that fails sets the thread's last error; success and "not ready" (a query's
// answer, not an error) leave it. musaGetLastError returns and clears it, musaPeekAtLastError
// only returns it. The model's HIP-style bookkeeping (finish) is private to this library.
thread_local LastError<musaError_t, musaSuccess, musaErrorNotReady, LastErrorRule::kFailuresOnly>
    t_last_error;

// The model's error numbers are CUDA's (HIP took them from CUDA), so the value carries over: every
// code the model returns to a musa* call has its MUSA twin at the same number
// (hipErrorInvalidContext and hipErrorFileNotFound come only from HIP's module calls, which MUSA's
// face does not use).
#define PROF_SAME_CODE(hip, musa) \
  static_assert(static_cast<int>(hip) == static_cast<int>(musa), #hip " != " #musa);
PROF_SAME_CODE(hipSuccess, musaSuccess)
PROF_SAME_CODE(hipErrorInvalidValue, musaErrorInvalidValue)
PROF_SAME_CODE(hipErrorOutOfMemory, musaErrorMemoryAllocation)
PROF_SAME_CODE(hipErrorNotInitialized, musaErrorInitializationError)
PROF_SAME_CODE(hipErrorInvalidConfiguration, musaErrorInvalidConfiguration)
PROF_SAME_CODE(hipErrorInvalidPitchValue, musaErrorInvalidPitchValue)
PROF_SAME_CODE(hipErrorInvalidDevicePointer, musaErrorInvalidDevicePointer)
PROF_SAME_CODE(hipErrorInvalidMemcpyDirection, musaErrorInvalidMemcpyDirection)
PROF_SAME_CODE(hipErrorMissingConfiguration, musaErrorMissingConfiguration)
PROF_SAME_CODE(hipErrorInvalidDeviceFunction, musaErrorInvalidDeviceFunction)
PROF_SAME_CODE(hipErrorNoDevice, musaErrorNoDevice)
PROF_SAME_CODE(hipErrorInvalidDevice, musaErrorInvalidDevice)
PROF_SAME_CODE(hipErrorInvalidImage, musaErrorInvalidKernelImage)
PROF_SAME_CODE(hipErrorInvalidHandle, musaErrorInvalidResourceHandle)
PROF_SAME_CODE(hipErrorIllegalState, musaErrorIllegalState)
PROF_SAME_CODE(hipErrorNotFound, musaErrorSymbolNotFound)
PROF_SAME_CODE(hipErrorNotReady, musaErrorNotReady)
PROF_SAME_CODE(hipErrorNotSupported, musaErrorNotSupported)
PROF_SAME_CODE(hipErrorStreamCaptureUnsupported, musaErrorStreamCaptureUnsupported)
PROF_SAME_CODE(hipErrorStreamCaptureInvalidated, musaErrorStreamCaptureInvalidated)
PROF_SAME_CODE(hipErrorStreamCaptureMerge, musaErrorStreamCaptureMerge)
PROF_SAME_CODE(hipErrorStreamCaptureUnmatched, musaErrorStreamCaptureUnmatched)
PROF_SAME_CODE(hipErrorStreamCaptureIsolation, musaErrorStreamCaptureIsolation)
PROF_SAME_CODE(hipErrorStreamCaptureImplicit, musaErrorStreamCaptureImplicit)
PROF_SAME_CODE(hipErrorCapturedEvent, musaErrorCapturedEvent)
PROF_SAME_CODE(hipErrorUnknown, musaErrorUnknown)
#undef PROF_SAME_CODE
musaError_t done(hipError_t ret) noexcept {
  return t_last_error.note(static_cast<musaError_t>(ret));
}

// musaStreamLegacy (0x1) is the legacy default stream, the model's null stream; musaStreamPerThread
// (0x2) has the value of the model's per-thread handle.
hipStream_t stream_of(musaStream_t s) noexcept {
  if (s == musaStreamLegacy) return nullptr;
  return reinterpret_cast<hipStream_t>(s);
}
hipEvent_t event_of(musaEvent_t e) noexcept { return reinterpret_cast<hipEvent_t>(e); }
hipMemcpyKind kind_of(musaMemcpyKind k) noexcept {
  return static_cast<hipMemcpyKind>(static_cast<int>(k));
}

constexpr size_t kTotalMemoryBytes = size_t{16} << 30;

// Texts as CUDA's cudaGetErrorName/cudaGetErrorString give them, with MUSA's prefix.
constexpr ErrorText<musaError_t> kErrors[] = {
    {musaSuccess, "musaSuccess", "no error"},
    {musaErrorInvalidValue, "musaErrorInvalidValue", "invalid argument"},
    {musaErrorMemoryAllocation, "musaErrorMemoryAllocation", "out of memory"},
    {musaErrorInitializationError, "musaErrorInitializationError", "initialization error"},
    {musaErrorInvalidConfiguration, "musaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {musaErrorInvalidPitchValue, "musaErrorInvalidPitchValue", "invalid pitch argument"},
    {musaErrorInvalidSymbol, "musaErrorInvalidSymbol", "invalid device symbol"},
    {musaErrorInvalidDevicePointer, "musaErrorInvalidDevicePointer", "invalid device pointer"},
    {musaErrorInvalidMemcpyDirection, "musaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {musaErrorMissingConfiguration, "musaErrorMissingConfiguration",
     "__global__ function call is not configured"},
    {musaErrorInvalidDeviceFunction, "musaErrorInvalidDeviceFunction", "invalid device function"},
    {musaErrorNoDevice, "musaErrorNoDevice", "no MUSA-capable device is detected"},
    {musaErrorInvalidDevice, "musaErrorInvalidDevice", "invalid device ordinal"},
    {musaErrorInvalidKernelImage, "musaErrorInvalidKernelImage", "device kernel image is invalid"},
    {musaErrorInvalidResourceHandle, "musaErrorInvalidResourceHandle", "invalid resource handle"},
    {musaErrorIllegalState, "musaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {musaErrorSymbolNotFound, "musaErrorSymbolNotFound", "named symbol not found"},
    {musaErrorNotReady, "musaErrorNotReady", "device not ready"},
    {musaErrorNotSupported, "musaErrorNotSupported", "operation not supported"},
    {musaErrorStreamCaptureUnsupported, "musaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {musaErrorStreamCaptureInvalidated, "musaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {musaErrorStreamCaptureMerge, "musaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {musaErrorStreamCaptureUnmatched, "musaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {musaErrorStreamCaptureUnjoined, "musaErrorStreamCaptureUnjoined",
     "capturing stream has unjoined work"},
    {musaErrorStreamCaptureIsolation, "musaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {musaErrorStreamCaptureImplicit, "musaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {musaErrorCapturedEvent, "musaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
    {musaErrorUnknown, "musaErrorUnknown", "unknown error"},
};

}  // namespace
}  // namespace prof::sim

using namespace prof::sim;

// ---- device ---------------------------------------------------------------------------------
musaError_t musaGetDeviceCount(int* count) { return done(hipGetDeviceCount(count)); }
musaError_t musaSetDevice(int device) { return done(hipSetDevice(device)); }
musaError_t musaGetDevice(int* device) { return done(hipGetDevice(device)); }
musaError_t musaDeviceSynchronize(void) { return done(hipDeviceSynchronize()); }
musaError_t musaDeviceReset(void) { return done(hipDeviceReset()); }

musaError_t musaGetDeviceProperties(musaDeviceProp* prop, int device) {
  hipDeviceProp_t model;
  const hipError_t ret = hipGetDeviceProperties(prop == nullptr ? nullptr : &model, device);
  if (ret != hipSuccess) return done(ret);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, "prof simulated MUSA device", sizeof prop->name - 1);
  prop->totalGlobalMem = model.totalGlobalMem;
  prop->sharedMemPerBlock = model.sharedMemPerBlock;
  prop->regsPerBlock = model.regsPerBlock;
  prop->warpSize = 32;  // a MUSA warp (HIP's model says 64, a wavefront)
  prop->maxThreadsPerBlock = model.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = model.maxThreadsDim[i];
    prop->maxGridSize[i] = model.maxGridSize[i];
  }
  prop->clockRate = model.clockRate;
  prop->totalConstMem = model.totalConstMem;
  prop->major = 2;  // the MTT S4000's "mp_22"
  prop->minor = 2;
  prop->multiProcessorCount = model.multiProcessorCount;
  return done(hipSuccess);
}

musaError_t musaDeviceGetAttribute(int* value, musaDeviceAttr attr, int device) {
  musaDeviceProp prop;
  if (value == nullptr) return done(hipErrorInvalidValue);
  if (const musaError_t e = musaGetDeviceProperties(&prop, device); e != musaSuccess) return e;
  switch (attr) {
    case musaDevAttrMaxThreadsPerBlock: *value = prop.maxThreadsPerBlock; break;
    case musaDevAttrMaxBlockDimX: *value = prop.maxThreadsDim[0]; break;
    case musaDevAttrMaxBlockDimY: *value = prop.maxThreadsDim[1]; break;
    case musaDevAttrMaxBlockDimZ: *value = prop.maxThreadsDim[2]; break;
    case musaDevAttrMaxGridDimX: *value = prop.maxGridSize[0]; break;
    case musaDevAttrMaxGridDimY: *value = prop.maxGridSize[1]; break;
    case musaDevAttrMaxGridDimZ: *value = prop.maxGridSize[2]; break;
    case musaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(prop.sharedMemPerBlock);
      break;
    case musaDevAttrWarpSize: *value = prop.warpSize; break;
    case musaDevAttrClockRate: *value = prop.clockRate; break;
    case musaDevAttrMultiProcessorCount: *value = prop.multiProcessorCount; break;
    case musaDevAttrComputeCapabilityMajor: *value = prop.major; break;
    case musaDevAttrComputeCapabilityMinor: *value = prop.minor; break;
    default: return done(hipErrorInvalidValue);
  }
  return musaSuccess;
}

// ---- memory ---------------------------------------------------------------------------------
musaError_t musaMalloc(void** devPtr, size_t size) { return done(hipMalloc(devPtr, size)); }
musaError_t musaFree(void* devPtr) { return done(hipFree(devPtr)); }
musaError_t musaMallocHost(void** ptr, size_t size) { return done(hipHostMalloc(ptr, size, 0)); }
musaError_t musaFreeHost(void* ptr) { return done(hipHostFree(ptr)); }
// musaHostAlloc's flag bits (portable 1, mapped 2, write-combined 4) are hipHostMalloc's.
musaError_t musaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  if ((flags & ~0x7u) != 0) return done(hipErrorInvalidValue);
  return done(hipHostMalloc(pHost, size, flags));
}
musaError_t musaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  return done(hipMallocManaged(devPtr, size, flags));
}

// Stream-ordered allocation: the memory exists from the call on, which is a valid (early) point in
// the stream's order. A free must not pull memory from under work still queued on the stream, so
// the model lets that work finish first: the caller waits, which real stream-ordered frees avoid.
musaError_t musaMallocAsync(void** devPtr, size_t size, musaStream_t hStream) {
  if (resolve_stream(stream_of(hStream)) == nullptr) return done(hipErrorInvalidHandle);
  return done(hipMalloc(devPtr, size));
}
musaError_t musaFreeAsync(void* devPtr, musaStream_t hStream) {
  if (resolve_stream(stream_of(hStream)) == nullptr) return done(hipErrorInvalidHandle);
  if (const hipError_t ret = hipStreamSynchronize(stream_of(hStream)); ret != hipSuccess)
    return done(ret);
  return done(hipFree(devPtr));
}

musaError_t musaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return done(hipErrorInvalidValue);
  int devices = 0;
  if (const hipError_t ret = hipGetDeviceCount(&devices); ret != hipSuccess) return done(ret);
  const size_t used = allocated_device_bytes(current_device());
  *total = kTotalMemoryBytes;
  *free = used < kTotalMemoryBytes ? kTotalMemoryBytes - used : 0;
  return musaSuccess;
}

musaError_t musaMemset(void* devPtr, int value, size_t count) {
  return done(hipMemset(devPtr, value, count));
}
musaError_t musaMemsetAsync(void* devPtr, int value, size_t count, musaStream_t stream) {
  return done(hipMemsetAsync(devPtr, value, count, stream_of(stream)));
}
musaError_t musaMemcpy(void* dst, const void* src, size_t count, musaMemcpyKind kind) {
  return done(hipMemcpy(dst, src, count, kind_of(kind)));
}
musaError_t musaMemcpyAsync(void* dst, const void* src, size_t count, musaMemcpyKind kind,
                            musaStream_t stream) {
  return done(hipMemcpyAsync(dst, src, count, kind_of(kind), stream_of(stream)));
}
musaError_t musaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, musaMemcpyKind kind) {
  return done(hipMemcpy2D(dst, dpitch, src, spitch, width, height, kind_of(kind)));
}
musaError_t musaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, musaMemcpyKind kind,
                              musaStream_t stream) {
  return done(
      hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind_of(kind), stream_of(stream)));
}
musaError_t musaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return done(hipMemcpyPeer(dst, dstDevice, src, srcDevice, count));
}
musaError_t musaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice,
                                size_t count, musaStream_t stream) {
  return done(hipMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream_of(stream)));
}

// ---- streams --------------------------------------------------------------------------------
musaError_t musaStreamCreate(musaStream_t* pStream) {
  return done(hipStreamCreate(reinterpret_cast<hipStream_t*>(pStream)));
}
musaError_t musaStreamCreateWithFlags(musaStream_t* pStream, unsigned int flags) {
  return done(hipStreamCreateWithFlags(reinterpret_cast<hipStream_t*>(pStream), flags));
}
musaError_t musaStreamCreateWithPriority(musaStream_t* pStream, unsigned int flags, int priority) {
  return done(
      hipStreamCreateWithPriority(reinterpret_cast<hipStream_t*>(pStream), flags, priority));
}
// The legacy default stream, like the null stream, cannot be destroyed.
musaError_t musaStreamDestroy(musaStream_t stream) {
  return done(stream == musaStreamLegacy ? hipErrorInvalidHandle
                                         : hipStreamDestroy(stream_of(stream)));
}
musaError_t musaStreamSynchronize(musaStream_t stream) {
  return done(hipStreamSynchronize(stream_of(stream)));
}
musaError_t musaStreamQuery(musaStream_t stream) { return done(hipStreamQuery(stream_of(stream))); }
musaError_t musaStreamWaitEvent(musaStream_t stream, musaEvent_t event, unsigned int flags) {
  return done(hipStreamWaitEvent(stream_of(stream), event_of(event), flags));
}
musaError_t musaStreamIsCapturing(musaStream_t stream, musaStreamCaptureStatus* pCaptureStatus) {
  return done(hipStreamIsCapturing(stream_of(stream),
                                   reinterpret_cast<hipStreamCaptureStatus*>(pCaptureStatus)));
}

// ---- events ---------------------------------------------------------------------------------
musaError_t musaEventCreate(musaEvent_t* event) {
  return done(hipEventCreate(reinterpret_cast<hipEvent_t*>(event)));
}
musaError_t musaEventCreateWithFlags(musaEvent_t* event, unsigned int flags) {
  return done(hipEventCreateWithFlags(reinterpret_cast<hipEvent_t*>(event), flags));
}
musaError_t musaEventRecord(musaEvent_t event, musaStream_t stream) {
  return done(hipEventRecord(event_of(event), stream_of(stream)));
}
musaError_t musaEventSynchronize(musaEvent_t event) {
  return done(hipEventSynchronize(event_of(event)));
}
musaError_t musaEventQuery(musaEvent_t event) { return done(hipEventQuery(event_of(event))); }
musaError_t musaEventElapsedTime(float* ms, musaEvent_t start, musaEvent_t end) {
  return done(hipEventElapsedTime(ms, event_of(start), event_of(end)));
}
musaError_t musaEventDestroy(musaEvent_t event) { return done(hipEventDestroy(event_of(event))); }

// ---- errors ---------------------------------------------------------------------------------
musaError_t musaGetLastError(void) { return t_last_error.take(); }
musaError_t musaPeekAtLastError(void) { return t_last_error.peek(); }
const char* musaGetErrorString(musaError_t error) {
  const ErrorText<musaError_t>* t = find_error_text(kErrors, error);
  return t != nullptr ? t->text : "unrecognized error code";
}
const char* musaGetErrorName(musaError_t error) {
  const ErrorText<musaError_t>* t = find_error_text(kErrors, error);
  return t != nullptr ? t->name : "unrecognized error code";
}

// ---- launches -------------------------------------------------------------------------------
musaError_t musaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, musaStream_t stream) {
  return done(hipLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream_of(stream)));
}
musaError_t musaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, musaStream_t stream) {
  return done(hipLaunchCooperativeKernel(func, gridDim, blockDim, args,
                                         static_cast<unsigned>(sharedMem), stream_of(stream)));
}
// The fat binary's contents are never read: any image gets a handle, as CUDA's constructors expect.
void** __musaRegisterFatBinary(void* fatCubin) { return __hipRegisterFatBinary(fatCubin); }
void __musaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                            const char* deviceName, int thread_limit, uint3* tid, uint3* bid,
                            dim3* bDim, dim3* gDim, int* wSize) {
  __hipRegisterFunction(fatCubinHandle, hostFun, deviceFun, deviceName,
                        static_cast<unsigned>(thread_limit), tid, bid, bDim, gDim, wSize);
}
void __musaUnregisterFatBinary(void** fatCubinHandle) { __hipUnregisterFatBinary(fatCubinHandle); }
unsigned __musaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     musaStream_t stream) {
  return static_cast<unsigned>(
      __hipPushCallConfiguration(gridDim, blockDim, sharedMem, stream_of(stream)));
}
musaError_t __musaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                       void* stream) {
  return done(
      __hipPopCallConfiguration(gridDim, blockDim, sharedMem, static_cast<hipStream_t*>(stream)));
}

// ---- capture and graphs ---------------------------------------------------------------------
musaError_t musaStreamBeginCapture(musaStream_t stream, musaStreamCaptureMode mode) {
  return done(hipStreamBeginCapture(stream_of(stream),
                                    static_cast<hipStreamCaptureMode>(static_cast<int>(mode))));
}
musaError_t musaStreamEndCapture(musaStream_t stream, musaGraph_t* pGraph) {
  return done(hipStreamEndCapture(stream_of(stream), reinterpret_cast<hipGraph_t*>(pGraph)));
}
// CUDA 12's instantiate flags (auto-free 1, upload 2, device launch 4, use node priority 8) change
// nothing the model simulates; other bits are invalid.
musaError_t musaGraphInstantiate(musaGraphExec_t* pGraphExec, musaGraph_t graph,
                                 unsigned long long flags) {
  if ((flags & ~0xFull) != 0) return done(hipErrorInvalidValue);
  return done(hipGraphInstantiate(reinterpret_cast<hipGraphExec_t*>(pGraphExec),
                                  reinterpret_cast<hipGraph_t>(graph), nullptr, nullptr, 0));
}
musaError_t musaGraphLaunch(musaGraphExec_t graphExec, musaStream_t stream) {
  return done(hipGraphLaunch(reinterpret_cast<hipGraphExec_t>(graphExec), stream_of(stream)));
}
musaError_t musaGraphExecDestroy(musaGraphExec_t graphExec) {
  return done(hipGraphExecDestroy(reinterpret_cast<hipGraphExec_t>(graphExec)));
}
musaError_t musaGraphDestroy(musaGraph_t graph) {
  return done(hipGraphDestroy(reinterpret_cast<hipGraph_t>(graph)));
}

// ---- the table holds the face to its prototypes ---------------------------------------------
// A definition above whose parameters differ from its musa_api.def row would be a C++ overload,
// not the extern "C" export: taking its address is then ambiguous and this fails to compile. A
// row without a definition leaves an undefined reference that -Wl,--no-undefined rejects.
namespace prof::sim {
namespace {
using AnyFunction = void (*)();
#define PROF_MUSA_API(name, ret, params, ...)                     \
  static_assert(std::is_same_v<decltype(&::name), ret(*) params>, \
                #name " differs from musa_api.def");
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
[[gnu::used]] const AnyFunction kEveryExport[] = {
#define PROF_MUSA_API(name, ...) reinterpret_cast<AnyFunction>(&::name),
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
};
}  // namespace
}  // namespace prof::sim
