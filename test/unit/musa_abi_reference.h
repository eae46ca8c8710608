/* The MUSA runtime ABI as ../shared/reference/vendor-api.md §2 states it, written as a C header
   independently of prof's runtimes/musa/musa_abi.hpp, so that musa_abi_test can hold prof's table
   and types against it (no real musa_runtime_api.h is installed anywhere prof is built).

   Sources, per the reference: the prototypes marked CONFIRMED are those a libmusart stub
   (TileLang's musart.cc) declares with decltype(&::musaX) against the real header; every other
   declaration is the CUDA runtime's (cuda_runtime_api.h, driver_types.h, crt/host_runtime.h of CUDA
   12) with the prefix changed, as the reference directs. Valid C and C++. */
#ifndef PROF_TEST_MUSA_ABI_REFERENCE_H
#define PROF_TEST_MUSA_ABI_REFERENCE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* driver_types.h (CUDA): cudaError, values unchanged. */
enum musaError {
  musaSuccess = 0,
  musaErrorInvalidValue = 1,
  musaErrorMemoryAllocation = 2,
  musaErrorInitializationError = 3,
  musaErrorInvalidConfiguration = 9,
  musaErrorInvalidPitchValue = 12,
  musaErrorInvalidSymbol = 13,
  musaErrorInvalidDevicePointer = 17,
  musaErrorInvalidMemcpyDirection = 21,
  musaErrorMissingConfiguration = 52,
  musaErrorInvalidDeviceFunction = 98,
  musaErrorNoDevice = 100,
  musaErrorInvalidDevice = 101,
  musaErrorInvalidKernelImage = 200,
  musaErrorInvalidResourceHandle = 400,
  musaErrorIllegalState = 401,
  musaErrorSymbolNotFound = 500,
  musaErrorNotReady = 600,
  musaErrorNotSupported = 801,
  musaErrorStreamCaptureUnsupported = 900,
  musaErrorStreamCaptureInvalidated = 901,
  musaErrorStreamCaptureMerge = 902,
  musaErrorStreamCaptureUnmatched = 903,
  musaErrorStreamCaptureUnjoined = 904,
  musaErrorStreamCaptureIsolation = 905,
  musaErrorStreamCaptureImplicit = 906,
  musaErrorCapturedEvent = 907,
  musaErrorUnknown = 999
};
typedef enum musaError musaError_t;

enum musaMemcpyKind {
  musaMemcpyHostToHost = 0,
  musaMemcpyHostToDevice = 1,
  musaMemcpyDeviceToHost = 2,
  musaMemcpyDeviceToDevice = 3,
  musaMemcpyDefault = 4
};
enum musaStreamCaptureStatus {
  musaStreamCaptureStatusNone = 0,
  musaStreamCaptureStatusActive = 1,
  musaStreamCaptureStatusInvalidated = 2
};
enum musaStreamCaptureMode {
  musaStreamCaptureModeGlobal = 0,
  musaStreamCaptureModeThreadLocal = 1,
  musaStreamCaptureModeRelaxed = 2
};
enum musaDeviceAttr {
  musaDevAttrMaxThreadsPerBlock = 1,
  musaDevAttrWarpSize = 10,
  musaDevAttrMultiProcessorCount = 16,
  musaDevAttrComputeCapabilityMajor = 75,
  musaDevAttrComputeCapabilityMinor = 76
};
#ifdef __cplusplus
/* C++ names the enums without `enum`, as the real header's C++ users do. */
typedef enum musaMemcpyKind musaMemcpyKind;
typedef enum musaStreamCaptureStatus musaStreamCaptureStatus;
typedef enum musaStreamCaptureMode musaStreamCaptureMode;
typedef enum musaDeviceAttr musaDeviceAttr;
#endif

/* vector_types.h */
struct dim3 {
  unsigned int x, y, z;
};
typedef struct dim3 dim3;
struct uint3 {
  unsigned int x, y, z;
};
typedef struct uint3 uint3;

typedef struct MUstream_st* musaStream_t;
typedef struct MUevent_st* musaEvent_t;
typedef struct MUgraph_st* musaGraph_t;
typedef struct MUgraphExec_st* musaGraphExec_t;

#define musaStreamDefault 0x00
#define musaStreamNonBlocking 0x01
#define musaStreamLegacy ((musaStream_t)0x1)
#define musaStreamPerThread ((musaStream_t)0x2)
#define musaEventDefault 0x00
#define musaEventBlockingSync 0x01
#define musaEventDisableTiming 0x02
#define musaEventInterprocess 0x04
#define musaHostAllocDefault 0x00
#define musaHostAllocPortable 0x01
#define musaHostAllocMapped 0x02
#define musaHostAllocWriteCombined 0x04
#define musaMemAttachGlobal 0x01

/* cudaDeviceProp of CUDA 12 (1008 bytes): the leading fields, the rest as bytes. */
struct musaUUID_st {
  char bytes[16];
};
struct musaDeviceProp {
  char name[256];
  struct musaUUID_st uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  unsigned char rest[616];
};
#ifdef __cplusplus
typedef struct musaDeviceProp musaDeviceProp;
#endif

/* CONFIRMED (vendor-api.md §2) */
musaError_t musaGetDeviceCount(int* count);
musaError_t musaSetDevice(int device);
musaError_t musaGetDevice(int* device);
musaError_t musaDeviceSynchronize(void);
musaError_t musaGetDeviceProperties(struct musaDeviceProp* prop, int device);
musaError_t musaDeviceGetAttribute(int* value, enum musaDeviceAttr attr, int device);
musaError_t musaMalloc(void** devPtr, size_t size);
musaError_t musaFree(void* devPtr);
musaError_t musaMallocHost(void** ptr, size_t size);
musaError_t musaFreeHost(void* ptr);
musaError_t musaMemGetInfo(size_t* free, size_t* total);
musaError_t musaMemset(void* devPtr, int value, size_t count);
musaError_t musaMemsetAsync(void* devPtr, int value, size_t count, musaStream_t stream);
musaError_t musaMemcpy(void* dst, const void* src, size_t count, enum musaMemcpyKind kind);
musaError_t musaMemcpyAsync(void* dst, const void* src, size_t count, enum musaMemcpyKind kind,
                            musaStream_t stream);
musaError_t musaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice,
                                size_t count, musaStream_t stream);
musaError_t musaStreamCreate(musaStream_t* pStream);
musaError_t musaStreamCreateWithFlags(musaStream_t* pStream, unsigned int flags);
musaError_t musaStreamDestroy(musaStream_t stream);
musaError_t musaStreamSynchronize(musaStream_t stream);
musaError_t musaStreamWaitEvent(musaStream_t stream, musaEvent_t event, unsigned int flags);
musaError_t musaEventCreate(musaEvent_t* event);
musaError_t musaEventDestroy(musaEvent_t event);
musaError_t musaEventRecord(musaEvent_t event, musaStream_t stream);
musaError_t musaEventSynchronize(musaEvent_t event);
musaError_t musaEventElapsedTime(float* ms, musaEvent_t start, musaEvent_t end);
musaError_t musaGetLastError(void);
musaError_t musaPeekAtLastError(void);
const char* musaGetErrorString(musaError_t error);
const char* musaGetErrorName(musaError_t error);
musaError_t musaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, musaStream_t stream);
musaError_t musaStreamBeginCapture(musaStream_t stream, enum musaStreamCaptureMode mode);
musaError_t musaStreamEndCapture(musaStream_t stream, musaGraph_t* pGraph);
musaError_t musaGraphInstantiate(musaGraphExec_t* pGraphExec, musaGraph_t graph,
                                 unsigned long long flags);
musaError_t musaGraphLaunch(musaGraphExec_t graphExec, musaStream_t stream);
musaError_t musaGraphExecDestroy(musaGraphExec_t graphExec);
musaError_t musaGraphDestroy(musaGraph_t graph);

/* ASSUMED from CUDA (cuda_runtime_api.h, crt/host_runtime.h), prefix changed */
musaError_t musaDeviceReset(void);
musaError_t musaHostAlloc(void** pHost, size_t size, unsigned int flags);
musaError_t musaMallocManaged(void** devPtr, size_t size, unsigned int flags);
musaError_t musaMallocAsync(void** devPtr, size_t size, musaStream_t hStream);
musaError_t musaFreeAsync(void* devPtr, musaStream_t hStream);
musaError_t musaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum musaMemcpyKind kind);
musaError_t musaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, enum musaMemcpyKind kind,
                              musaStream_t stream);
musaError_t musaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count);
musaError_t musaStreamCreateWithPriority(musaStream_t* pStream, unsigned int flags, int priority);
musaError_t musaStreamQuery(musaStream_t stream);
musaError_t musaStreamIsCapturing(musaStream_t stream,
                                  enum musaStreamCaptureStatus* pCaptureStatus);
musaError_t musaEventCreateWithFlags(musaEvent_t* event, unsigned int flags);
musaError_t musaEventQuery(musaEvent_t event);
musaError_t musaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, musaStream_t stream);
void** __musaRegisterFatBinary(void* fatCubin);
void __musaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                            const char* deviceName, int thread_limit, uint3* tid, uint3* bid,
                            dim3* bDim, dim3* gDim, int* wSize);
void __musaUnregisterFatBinary(void** fatCubinHandle);
unsigned __musaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     musaStream_t stream);
musaError_t __musaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                       void* stream);

#ifdef __cplusplus
}
#endif
#endif
