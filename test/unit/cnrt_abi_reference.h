/* Cambricon CNRT declarations written from ../shared/reference/vendor-api.md §3 (a copy of the real
   cnrt.h, CNRT 6.14.1), in C, independently of prof's runtimes/cnrt/cnrt_abi.hpp: the ABI test
   holds prof's table and types against this header, and the C sample (test/apps/cnrt_sample.c) is
   written against it, as a user's program is written against cnrt.h. */
#ifndef PROF_TEST_CNRT_ABI_REFERENCE_H
#define PROF_TEST_CNRT_ABI_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define cnrtGetDeviceProperties cnrtGetDeviceProperties_V3

typedef enum {
  cnrtSuccess = 0,
  cnrtErrorNotReady = 1,
  cnrtErrorInit = 100002,
  cnrtErrorNoDevice = 100004,
  cnrtErrorDeviceInvalid = 100005,
  cnrtErrorArgsInvalid = 100006,
  cnrtErrorInvalidResourceHandle = 100014,
  cnrtErrorNoMem = 100100,
  cnrtErrorInvalidKernel = 100302,
  cnrtErrorNoKernel = 101312,
  cnrtErrorQueueCaptureUnsupported = 100360,
  cnrtErrorMemcpyDirectionInvalid = 632013,
  cnrtErrorBusy = 632014,
  cnrtErrorCndrvFuncCall = 632015,
  cnrtErrorUnknown = 999991
} cnrtRet_t;

typedef enum {
  cnrtFuncTypeBlock = 1,
  cnrtFuncTypeBlock0 = cnrtFuncTypeBlock,
  cnrtFuncTypeBlock1 = cnrtFuncTypeBlock0 + 1,
  cnrtFuncTypeUnion1 = 4,
  cnrtFuncTypeUnion2 = 8,
  cnrtFuncTypeUnion4 = 16,
  cnrtFuncTypeUnion8 = 32,
  cnrtFuncTypeUnion16 = 64,
  cnrtFuncTypeMutable = -1
} cnrtFunctionType_t;

typedef struct {
  unsigned int x;
  unsigned int y;
  unsigned int z;
} cnrtDim3_t;

typedef enum {
  cnrtMemcpyHostToDev = 0,
  cnrtMemcpyDevToDev,
  cnrtMemcpyDevToHost,
  cnrtMemcpyHostToHost,
  cnrtMemcpyPeerToPeer,
  cnrtMemcpyNoDirection
} cnrtMemTransDir_t;

#define cnrtQueue CNqueue_st
typedef struct cnrtQueue* cnrtQueue_t;
#define cnrtQueuePerThread ((cnrtQueue_t)1)
#define cnrtQueueLegacy ((cnrtQueue_t)2)
#define cnrtNotifier CNnotifier_st
typedef struct cnrtNotifier* cnrtNotifier_t;

typedef enum cnrtNotifierFlags {
  CNRT_NOTIFIER_DEFAULT = 0x0,
  CNRT_NOTIFIER_DISABLE_TIMING_SW = 0x2,
  CNRT_NOTIFIER_DISABLE_TIMING = CNRT_NOTIFIER_DISABLE_TIMING_SW,
  CNRT_NOTIFIER_DISABLE_TIMING_ALL = 0x4,
  CNRT_NOTIFIER_INTERPROCESS = 0x8
} cnrtNotifierFlags_t;

typedef enum cnrtQueueCaptureStatus {
  cnrtQueueCaptureStatusNone = 0,
  cnrtQueueCaptureStatusActive = 1,
  cnrtQueueCaptureStatusInvalidated = 2
} cnrtQueueCaptureStatus_t;

typedef struct CNtaskTopoEntity_st* cnrtTaskTopoEntity_t;

struct cnrtUUID_st {
  char uuid[16];
};
typedef struct cnrtUUID_st cnrtUUID_t;

typedef struct cnrtDeviceProp_V3 {
  char name[256];
  int totalMem;
  int maxDim[3];
  int ipuClockRate;
  int memClockRate;
  int totalConstMem;
  int major;
  int minor;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int maxL2CacheSize;
  int persistingL2CacheMaxSize;
  int queuePrioritiesSupported;
  int sparseComputingSupported;
  int FP16ComputingSupported;
  int INT4ComputingSupported;
  int INT8ComputingSupported;
  int BF16ComputingSupported;
  int TF32ComputingSupported;
  int maxQueueSize;
  int maxNotifierSize;
  int tinyCoreSupported;
  int codecJPEGSupported;
  int codecH264Supported;
  int codecH265Supported;
  int maxClusterCountPerUnionTask;
  int clusterCount;
  int McorePerCluster;
  int maxQuadrantCount;
  int maxUnionTypePerQuadrant;
  int maxClusterPerUnionLimitTask;
  int ISAVersion;
  int isMultipleTensorProcessor;
  int NramSizePerMcore;
  int WramSizePerMcore;
  int LmemSizePerMcore;
  int SramSizePerMcore;
  int globalMemoryNodeCount;
  int cacheSize;
  int GmemBusWidth;
  int computeMode;
  int MDRMemorySize;
  int availableGlobalMemorySize;
  cnrtUUID_t uuid;
  uint64_t totalGlobalMemSize;
  int reserved[30];
} cnrtDeviceProp_t;

/* a) device */
cnrtRet_t cnrtGetDeviceCount(unsigned int* pCount);
cnrtRet_t cnrtSetDevice(int ordinal);
cnrtRet_t cnrtGetDevice(int* pOrdinal);
cnrtRet_t cnrtSyncDevice(void);
cnrtRet_t cnrtDeviceReset(void);
cnrtRet_t cnrtGetDeviceProperties(cnrtDeviceProp_t* prop, int device);
/* b) memory */
cnrtRet_t cnrtMalloc(void** pPtr, size_t bytes);
cnrtRet_t cnrtFree(void* ptr);
cnrtRet_t cnrtHostMalloc(void** pPtr, size_t bytes);
cnrtRet_t cnrtFreeHost(void* ptr);
cnrtRet_t cnrtMemset(void* ptr, int value, size_t bytes);
cnrtRet_t cnrtMemsetAsync(void* ptr, int value, size_t bytes, cnrtQueue_t queue);
cnrtRet_t cnrtMemcpy(void* dst, void* src, size_t bytes, cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyAsync(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                          cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyAsync_V2(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyAsync_V3(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyPeer(void* dst, int dstDev, void* src, int srcDev, size_t bytes);
cnrtRet_t cnrtMemcpyPeerAsync(void* dst, int dstDev, void* src, int srcDev, size_t bytes,
                              cnrtQueue_t queue);
cnrtRet_t cnrtMemAllocAsync(void** pPtr, size_t byteSize, cnrtQueue_t queue);
cnrtRet_t cnrtMemFreeAsync(void* mluAddr, cnrtQueue_t hqueue);
/* c) queues */
cnrtRet_t cnrtQueueCreate(cnrtQueue_t* pQueue);
cnrtRet_t cnrtQueueCreateWithPriority(cnrtQueue_t* pQueue, unsigned int flags, int priority);
cnrtRet_t cnrtQueueDestroy(cnrtQueue_t queue);
cnrtRet_t cnrtQueueSync(cnrtQueue_t queue);
cnrtRet_t cnrtQueueQuery(cnrtQueue_t queue);
cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag);
cnrtRet_t cnrtQueueIsCapturing(cnrtQueue_t queue, enum cnrtQueueCaptureStatus* pStatus);
/* d) notifiers */
cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t* pNotifier);
cnrtRet_t cnrtNotifierCreateWithFlags(cnrtNotifier_t* pNotifier, unsigned int flags);
cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier);
cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue);
cnrtRet_t cnrtPlaceNotifierWithFlags(cnrtNotifier_t notifier, cnrtQueue_t queue,
                                     unsigned int flags);
cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtNotifierElapsedTime(cnrtNotifier_t start, cnrtNotifier_t end, float* ms);
cnrtRet_t cnrtNotifierDuration(cnrtNotifier_t start, cnrtNotifier_t end, float* us);
/* e) launch */
cnrtRet_t cnrtInvokeKernel(const void* kernel, cnrtDim3_t dim, cnrtFunctionType_t ktype,
                           void** args, size_t reserved, cnrtQueue_t queue);
cnrtRet_t cnrtTaskTopoEntityInvoke(cnrtTaskTopoEntity_t entity, cnrtQueue_t queue);
/* f) errors, version */
const char* cnrtGetErrorName(cnrtRet_t error);
const char* cnrtGetErrorStr(cnrtRet_t error);
cnrtRet_t cnrtGetLastError(void);
cnrtRet_t cnrtPeekAtLastError(void);
cnrtRet_t cnrtGetLibVersion(int* major, int* minor, int* patch);

#if defined(__cplusplus)
}
#endif
#endif
