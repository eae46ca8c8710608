// The rest of HIP 5.2's types that the full API table (hip_api.def) names, as Debian's headers
// declare them (driver_types.h, texture_types.h, hip_runtime_api.h, hiprtc.h). Types that only
// ever travel behind a pointer are declared incomplete; those passed or returned by value, and
// those prof or the simulator read, are laid out in full; test/unit/hip_abi_test.cpp compares their
// sizes, offsets and enumerator values with the real headers. Included by hip_abi.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

// ---- handles ----------------------------------------------------------------------------
typedef int hipDevice_t;
typedef struct ihipCtx_t* hipCtx_t;
typedef struct ihipMemPoolHandle_t* hipMemPool_t;
typedef struct ihipMemGenericAllocationHandle* hipMemGenericAllocationHandle_t;
typedef struct hipArray hipArray;
typedef hipArray* hipArray_t;
typedef const hipArray* hipArray_const_t;
typedef struct hipMipmappedArray hipMipmappedArray;
typedef hipMipmappedArray* hipMipmappedArray_t;
typedef const hipMipmappedArray* hipMipmappedArray_const_t;
typedef struct textureReference textureReference;
typedef struct __hip_texture* hipTextureObject_t;
typedef struct __hip_surface* hipSurfaceObject_t;
typedef void* hipExternalMemory_t;
typedef void* hipExternalSemaphore_t;
typedef struct _hipGraphicsResource hipGraphicsResource;
typedef hipGraphicsResource* hipGraphicsResource_t;
typedef struct _hiprtcProgram* hiprtcProgram;
typedef unsigned int GLuint;
typedef unsigned int GLenum;
typedef void (*hipStreamCallback_t)(hipStream_t stream, hipError_t status, void* userData);

// ---- structures behind pointers only ----------------------------------------------------
typedef struct HIP_RESOURCE_DESC_st HIP_RESOURCE_DESC;
typedef struct HIP_RESOURCE_VIEW_DESC_st HIP_RESOURCE_VIEW_DESC;
typedef struct HIP_TEXTURE_DESC_st HIP_TEXTURE_DESC;
typedef struct hipResourceDesc hipResourceDesc;
typedef struct hipResourceViewDesc hipResourceViewDesc;
typedef struct hipTextureDesc hipTextureDesc;
typedef struct hipExternalMemoryHandleDesc_st hipExternalMemoryHandleDesc;
typedef struct hipExternalMemoryBufferDesc_st hipExternalMemoryBufferDesc;
typedef struct hipExternalSemaphoreHandleDesc_st hipExternalSemaphoreHandleDesc;
typedef struct hipExternalSemaphoreSignalParams_st hipExternalSemaphoreSignalParams;
typedef struct hipExternalSemaphoreWaitParams_st hipExternalSemaphoreWaitParams;
typedef struct hipHostNodeParams hipHostNodeParams;
typedef struct hipMemsetParams hipMemsetParams;
typedef struct hipMemAccessDesc hipMemAccessDesc;
typedef struct hipMemAllocationProp hipMemAllocationProp;
typedef struct hipMemLocation hipMemLocation;
typedef struct hipMemPoolProps hipMemPoolProps;
typedef struct hipMemPoolPtrExportData hipMemPoolPtrExportData;
typedef struct hipArrayMapInfo hipArrayMapInfo;
typedef struct hipUUID_t hipUUID;

// ---- enumerations (int-sized; a fixed underlying type so any value a program passes reaches
// the runtime, as for hipMemcpyKind); only the enumerators prof or the simulator use ----------
typedef enum hipDeviceAttribute_t : int {
  hipDeviceAttributeEccEnabled = 0,
  hipDeviceAttributeAsyncEngineCount = 2,
  hipDeviceAttributeCanMapHostMemory = 3,
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeComputeMode = 6,
  hipDeviceAttributeConcurrentKernels = 8,
  hipDeviceAttributeConcurrentManagedAccess = 9,
  hipDeviceAttributeCooperativeLaunch = 10,
  hipDeviceAttributeCooperativeMultiDeviceLaunch = 11,
  hipDeviceAttributeHostNativeAtomicSupported = 15,
  hipDeviceAttributeIntegrated = 16,
  hipDeviceAttributeIsMultiGpuBoard = 17,
  hipDeviceAttributeKernelExecTimeout = 18,
  hipDeviceAttributeL2CacheSize = 19,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeManagedMemory = 24,
  hipDeviceAttributeMaxBlocksPerMultiProcessor = 25,
  hipDeviceAttributeMaxBlockDimX = 26,
  hipDeviceAttributeMaxBlockDimY = 27,
  hipDeviceAttributeMaxBlockDimZ = 28,
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxGridDimZ = 31,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMaxThreadsPerMultiProcessor = 57,
  hipDeviceAttributeMaxPitch = 58,
  hipDeviceAttributeMemoryBusWidth = 59,
  hipDeviceAttributeMemoryClockRate = 60,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributePageableMemoryAccess = 65,
  hipDeviceAttributePciBusId = 67,
  hipDeviceAttributePciDeviceId = 68,
  hipDeviceAttributePciDomainID = 69,
  hipDeviceAttributeMaxRegistersPerBlock = 71,
  hipDeviceAttributeMaxRegistersPerMultiprocessor = 72,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeSharedMemPerMultiprocessor = 76,
  hipDeviceAttributeStreamPrioritiesSupported = 78,
  hipDeviceAttributeTextureAlignment = 81,
  hipDeviceAttributeTotalConstantMemory = 83,
  hipDeviceAttributeTotalGlobalMem = 84,
  hipDeviceAttributeUnifiedAddressing = 85,
  hipDeviceAttributeWarpSize = 87,
  hipDeviceAttributeMemoryPoolsSupported = 88,
  hipDeviceAttributeClockInstructionRate = 10000,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002,
  hipDeviceAttributeGcnArch = 10003,
  hipDeviceAttributeImageSupport = 10014,
  hipDeviceAttributePhysicalMultiProcessorCount = 10015,
} hipDeviceAttribute_t;
typedef enum hipDeviceP2PAttr : int {
  hipDevP2PAttrPerformanceRank = 0,
  hipDevP2PAttrAccessSupported = 1,
  hipDevP2PAttrNativeAtomicSupported = 2,
  hipDevP2PAttrHipArrayAccessSupported = 3
} hipDeviceP2PAttr;
typedef enum hipMemoryType : int {
  hipMemoryTypeHost = 0,
  hipMemoryTypeDevice = 1,
  hipMemoryTypeArray = 2,
  hipMemoryTypeUnified = 3
} hipMemoryType;
typedef enum hipArray_Format : int {
  HIP_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  HIP_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  HIP_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  HIP_AD_FORMAT_SIGNED_INT8 = 0x08,
  HIP_AD_FORMAT_SIGNED_INT16 = 0x09,
  HIP_AD_FORMAT_SIGNED_INT32 = 0x0a,
  HIP_AD_FORMAT_HALF = 0x10,
  HIP_AD_FORMAT_FLOAT = 0x20
} hipArray_Format;
typedef enum hipChannelFormatKind : int {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
} hipChannelFormatKind;
typedef enum hipFuncCache_t : int { hipFuncCachePreferNone = 0 } hipFuncCache_t;
typedef enum hipSharedMemConfig : int { hipSharedMemBankSizeDefault = 0 } hipSharedMemConfig;
enum hipLimit_t : int { hipLimitPrintfFifoSize = 0x01, hipLimitMallocHeapSize = 0x02 };
typedef enum hipFuncAttribute : int {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8
} hipFuncAttribute;
typedef enum hipFunction_attribute : int {
  HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  HIP_FUNC_ATTRIBUTE_NUM_REGS = 4,
  HIP_FUNC_ATTRIBUTE_MAX = 10
} hipFunction_attribute;
typedef enum hipPointer_attribute : int { HIP_POINTER_ATTRIBUTE_CONTEXT = 1 } hipPointer_attribute;
typedef enum hipMemoryAdvise : int { hipMemAdviseSetReadMostly = 1 } hipMemoryAdvise;
typedef enum hipMemRangeAttribute : int { hipMemRangeAttributeReadMostly = 1 } hipMemRangeAttribute;
typedef enum hipMemPoolAttr : int { hipMemPoolAttrReleaseThreshold = 4 } hipMemPoolAttr;
typedef enum hipMemAllocationHandleType : int {
  hipMemHandleTypeNone = 0
} hipMemAllocationHandleType;
typedef enum hipMemAllocationGranularity_flags : int {
  hipMemAllocationGranularityMinimum = 0
} hipMemAllocationGranularity_flags;
typedef enum hipMemAccessFlags : int { hipMemAccessFlagsProtNone = 0 } hipMemAccessFlags;
typedef enum hipGraphExecUpdateResult : int {
  hipGraphExecUpdateSuccess = 0
} hipGraphExecUpdateResult;
enum hipTextureAddressMode : int { hipAddressModeWrap = 0 };
enum hipTextureFilterMode : int { hipFilterModePoint = 0 };
typedef enum hipGLDeviceList : int { hipGLDeviceListAll = 1 } hipGLDeviceList;
typedef enum hipJitOption : int { hipJitOptionMaxRegisters = 0 } hipJitOption;
typedef enum hiprtcResult : int {
  HIPRTC_SUCCESS = 0,
  HIPRTC_ERROR_OUT_OF_MEMORY = 1,
  HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  HIPRTC_ERROR_INVALID_INPUT = 3,
  HIPRTC_ERROR_INVALID_PROGRAM = 4,
  HIPRTC_ERROR_INVALID_OPTION = 5,
  HIPRTC_ERROR_COMPILATION = 6,
} hiprtcResult;

// ---- structures passed by value or read by prof / the simulator -------------------------
typedef struct hipChannelFormatDesc {
  int x, y, z, w;
  enum hipChannelFormatKind f;
} hipChannelFormatDesc;
typedef struct hipExtent {
  size_t width;  // bytes for linear memory, elements for arrays
  size_t height;
  size_t depth;
} hipExtent;
typedef struct hipPos {
  size_t x, y, z;
} hipPos;
typedef struct hipPitchedPtr {
  void* ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
} hipPitchedPtr;
typedef struct hipMemcpy3DParms {
  hipArray_t srcArray;
  hipPos srcPos;
  hipPitchedPtr srcPtr;
  hipArray_t dstArray;
  hipPos dstPos;
  hipPitchedPtr dstPtr;
  hipExtent extent;
  hipMemcpyKind kind;
} hipMemcpy3DParms;
typedef struct hip_Memcpy2D {
  size_t srcXInBytes;
  size_t srcY;
  hipMemoryType srcMemoryType;
  const void* srcHost;
  hipDeviceptr_t srcDevice;
  hipArray* srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  hipMemoryType dstMemoryType;
  void* dstHost;
  hipDeviceptr_t dstDevice;
  hipArray* dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} hip_Memcpy2D;
typedef struct HIP_MEMCPY3D {
  unsigned int srcXInBytes, srcY, srcZ, srcLOD;
  hipMemoryType srcMemoryType;
  const void* srcHost;
  hipDeviceptr_t srcDevice;
  hipArray_t srcArray;
  unsigned int srcPitch, srcHeight;
  unsigned int dstXInBytes, dstY, dstZ, dstLOD;
  hipMemoryType dstMemoryType;
  void* dstHost;
  hipDeviceptr_t dstDevice;
  hipArray_t dstArray;
  unsigned int dstPitch, dstHeight;
  unsigned int WidthInBytes, Height, Depth;
} HIP_MEMCPY3D;
typedef struct HIP_ARRAY_DESCRIPTOR {
  size_t Width;
  size_t Height;
  enum hipArray_Format Format;
  unsigned int NumChannels;
} HIP_ARRAY_DESCRIPTOR;
typedef struct HIP_ARRAY3D_DESCRIPTOR {
  size_t Width;
  size_t Height;
  size_t Depth;
  enum hipArray_Format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} HIP_ARRAY3D_DESCRIPTOR;
typedef struct hipLaunchParams_t {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  hipStream_t stream;
} hipLaunchParams;
typedef struct hipPointerAttribute_t {
  enum hipMemoryType memoryType;
  int device;
  void* devicePointer;
  void* hostPointer;
  int isManaged;
  unsigned allocationFlags;
} hipPointerAttribute_t;
typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;
typedef struct hipIpcMemHandle_st {
  char reserved[64];
} hipIpcMemHandle_t;
typedef struct hipIpcEventHandle_st {
  char reserved[64];
} hipIpcEventHandle_t;
struct hipUUID_t {
  char bytes[16];
};

}  // extern "C"

static_assert(sizeof(hipMemcpy3DParms) == 160 && sizeof(HIP_MEMCPY3D) == 128);
static_assert(sizeof(hipFuncAttributes) == 56 && sizeof(hipPointerAttribute_t) == 32);
