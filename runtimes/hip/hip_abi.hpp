// HIP runtime ABI as Debian's libamdhip64 5.2 declares it (see ../shared/reference/vendor-api.md).
// prof builds without HIP installed, so the types the API table needs are declared here, from the
// facts in the reference; test/unit/hip_abi_test.cpp holds them against the real headers when
// present.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtimes/vector_types.hpp"

extern "C" {

typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidPitchValue = 12,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorMissingConfiguration = 52,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorNotMapped = 211,
  hipErrorUnsupportedLimit = 215,
  hipErrorPeerAccessUnsupported = 217,
  hipErrorInvalidKernelFile = 218,
  hipErrorFileNotFound = 301,
  hipErrorSharedObjectSymbolNotFound = 302,
  hipErrorInvalidHandle = 400,
  hipErrorIllegalState = 401,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorHostMemoryAlreadyRegistered = 712,
  hipErrorHostMemoryNotRegistered = 713,
  hipErrorNotSupported = 801,
  hipErrorStreamCaptureUnsupported = 900,
  hipErrorStreamCaptureInvalidated = 901,
  hipErrorStreamCaptureMerge = 902,
  hipErrorStreamCaptureUnmatched = 903,
  hipErrorStreamCaptureIsolation = 905,
  hipErrorStreamCaptureImplicit = 906,
  hipErrorCapturedEvent = 907,
  hipErrorUnknown = 999,
} hipError_t;
constexpr hipError_t hipErrorInvalidResourceHandle = hipErrorInvalidHandle;

typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef void* hipDeviceptr_t;
typedef struct ihipModuleSymbol_t* hipFunction_t;
typedef struct ihipModule_t* hipModule_t;
typedef struct hipGraphExec* hipGraphExec_t;
typedef struct ihipGraph* hipGraph_t;
typedef struct hipGraphNode* hipGraphNode_t;

// A fixed underlying type (the C enum's int, so the ABI is the same): a program may pass any int
// (a bad kind must reach the runtime and fail there), and reading one outside 0..7 from an enum
// without a fixed type is undefined behaviour in C++ (UBSan -fsanitize=enum flags it in the hook).
typedef enum hipMemcpyKind : int {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
} hipMemcpyKind;

typedef enum hipStreamCaptureStatus {
  hipStreamCaptureStatusNone = 0,
  hipStreamCaptureStatusActive,
  hipStreamCaptureStatusInvalidated
} hipStreamCaptureStatus;

// Fixed underlying type for the same reason as hipMemcpyKind: a bad mode must reach the runtime.
typedef enum hipStreamCaptureMode : int {
  hipStreamCaptureModeGlobal = 0,
  hipStreamCaptureModeThreadLocal,
  hipStreamCaptureModeRelaxed
} hipStreamCaptureMode;

// Node types as in HIP 5.2 (hipGraphNodeTypeCount = 12 there).
typedef enum hipGraphNodeType {
  hipGraphNodeTypeKernel = 1,
  hipGraphNodeTypeMemcpy = 2,
  hipGraphNodeTypeMemset = 3,
  hipGraphNodeTypeHost = 4,
  hipGraphNodeTypeGraph = 5,
  hipGraphNodeTypeEmpty = 6,
  hipGraphNodeTypeWaitEvent = 7,
  hipGraphNodeTypeEventRecord = 8,
  hipGraphNodeTypeMemcpy1D = 9,
  hipGraphNodeTypeMemcpyFromSymbol = 10,
  hipGraphNodeTypeMemcpyToSymbol = 11,
  hipGraphNodeTypeCount
} hipGraphNodeType;

typedef struct hipKernelNodeParams {
  dim3 blockDim;
  void** extra;
  void* func;
  dim3 gridDim;
  void** kernelParams;
  unsigned int sharedMemBytes;
} hipKernelNodeParams;

#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipStreamPerThread ((hipStream_t)2)
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipHostMallocDefault 0x0
#define hipMemAttachGlobal 0x01

// hipDeviceProp_t is 792 bytes in HIP 5.2, every field declared: the simulated device fills the
// tail too (managedMemory and the other capability flags must agree with hipDeviceGetAttribute).
// hip_abi_test checks the offsets against the real header.
typedef struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  unsigned arch;  // hipDeviceArch_t: 4 bytes of bit-fields
  int concurrentKernels;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
  int integrated;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  int maxTexture1DLinear;
  int maxTexture1D;
  int maxTexture2D[2];
  int maxTexture3D[3];
  unsigned int* hdpMemFlushCntl;
  unsigned int* hdpRegFlushCntl;
  size_t memPitch;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int kernelExecTimeoutEnabled;
  int ECCEnabled;
  int tccDriver;
  int cooperativeMultiDeviceUnmatchedFunc;
  int cooperativeMultiDeviceUnmatchedGridDim;
  int cooperativeMultiDeviceUnmatchedBlockDim;
  int cooperativeMultiDeviceUnmatchedSharedMem;
  int isLargeBar;
  int asicRevision;
  int managedMemory;
  int directManagedMemAccessFromHost;
  int concurrentManagedAccess;
  int pageableMemoryAccess;
  int pageableMemoryAccessUsesHostPageTables;
} hipDeviceProp_t;

}  // extern "C"

#include "runtimes/hip/hip_abi_types.hpp"

static_assert(sizeof(hipMemcpyKind) == sizeof(int));
static_assert(sizeof(dim3) == 12);
static_assert(sizeof(hipDeviceProp_t) == 792);
static_assert(offsetof(hipDeviceProp_t, arch) == 356);
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == 396);
static_assert(offsetof(hipDeviceProp_t, managedMemory) == 772);
