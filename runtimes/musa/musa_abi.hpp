// MUSA runtime ABI (libmusart) as prof assumes it: MUSA mirrors the CUDA runtime API with the
// prefix changed (../shared/reference/vendor-api.md §2). No musa_runtime_api.h is installed here,
// so every value below is CUDA's; which of musa_api.def's prototypes were confirmed against the
// real header is marked there row by row. test/unit/musa_abi_test.cpp holds these declarations
// against test/unit/musa_abi_reference.h, a C header written from the reference.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtimes/vector_types.hpp"

extern "C" {

// CUDA's numbering (assumed for MUSA; vendor-api.md: "musaSuccess = 0, musaErrorNotReady = 600").
typedef enum musaError : int {
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
  musaErrorUnknown = 999,
} musaError_t;

// Opaque handles, as CUDA's `struct CUstream_st*` etc.: only the pointer's size matters.
typedef struct MUstream_st* musaStream_t;
typedef struct MUevent_st* musaEvent_t;
typedef struct MUgraph_st* musaGraph_t;
typedef struct MUgraphExec_st* musaGraphExec_t;
typedef struct MUgraphNode_st* musaGraphNode_t;

// A fixed underlying type (the C enum's int, same ABI) so a bad kind reaches the runtime and fails
// there, and reading it in a hook is not undefined behaviour (see hipMemcpyKind).
typedef enum musaMemcpyKind : int {
  musaMemcpyHostToHost = 0,
  musaMemcpyHostToDevice = 1,
  musaMemcpyDeviceToHost = 2,
  musaMemcpyDeviceToDevice = 3,
  musaMemcpyDefault = 4
} musaMemcpyKind;

typedef enum musaStreamCaptureStatus : int {
  musaStreamCaptureStatusNone = 0,
  musaStreamCaptureStatusActive = 1,
  musaStreamCaptureStatusInvalidated = 2
} musaStreamCaptureStatus;

typedef enum musaStreamCaptureMode : int {
  musaStreamCaptureModeGlobal = 0,
  musaStreamCaptureModeThreadLocal = 1,
  musaStreamCaptureModeRelaxed = 2
} musaStreamCaptureMode;

// The attributes prof's simulated device answers; the rest reach it as plain ints (CUDA's values).
typedef enum musaDeviceAttr : int {
  musaDevAttrMaxThreadsPerBlock = 1,
  musaDevAttrMaxBlockDimX = 2,
  musaDevAttrMaxBlockDimY = 3,
  musaDevAttrMaxBlockDimZ = 4,
  musaDevAttrMaxGridDimX = 5,
  musaDevAttrMaxGridDimY = 6,
  musaDevAttrMaxGridDimZ = 7,
  musaDevAttrMaxSharedMemoryPerBlock = 8,
  musaDevAttrWarpSize = 10,
  musaDevAttrClockRate = 13,
  musaDevAttrMultiProcessorCount = 16,
  musaDevAttrComputeCapabilityMajor = 75,
  musaDevAttrComputeCapabilityMinor = 76,
} musaDeviceAttr;

typedef enum musaFuncAttribute : int {
  musaFuncAttributeMaxDynamicSharedMemorySize = 8,
  musaFuncAttributePreferredSharedMemoryCarveout = 9,
} musaFuncAttribute;

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

// ASSUMED layout: CUDA 12.x's cudaDeviceProp (1008 bytes), whose leading fields are declared here
// and the rest kept opaque. MUSA 5.x tracks CUDA 12.8's API level (vendor-api.md §2), but no real
// musaDeviceProp was seen. prof's simulated device writes only the fields declared here and never
// writes past `multiProcessorCount`, so a shorter real struct is not overrun by the leading fields.
typedef struct musaUUID_st {
  char bytes[16];
} musaUUID_t;
typedef struct musaDeviceProp {
  char name[256];
  musaUUID_t uuid;
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
  unsigned char opaque_tail[1008 - 392];
} musaDeviceProp;

}  // extern "C"

static_assert(sizeof(musaError_t) == sizeof(int));
static_assert(sizeof(musaMemcpyKind) == sizeof(int));
static_assert(sizeof(musaDeviceProp) == 1008);
static_assert(offsetof(musaDeviceProp, totalGlobalMem) == 288);
static_assert(offsetof(musaDeviceProp, major) == 360);
static_assert(offsetof(musaDeviceProp, multiProcessorCount) == 388);
