// Cambricon CNRT ABI (libcnrt, CNRT 6.x) as prof declares it: the types and values
// runtimes/cnrt/cnrt_api.def needs, from ../shared/reference/vendor-api.md §3 (a copy of the real
// cnrt.h, CNRT 6.14.1). test/unit/cnrt_abi_test.cpp holds them against
// test/unit/cnrt_abi_reference.h, a C header written from the reference.
//
// Where CNRT differs from HIP/CUDA (each has a test): copy directions are numbered 0..5 in its own
// order; cnrtMemcpyAsync takes the queue before the direction and cnrtMemcpy's source is not
// const; cnrtQueuePerThread is 1 and cnrtQueueLegacy 2 (HIP's are the reverse); queries answer
// cnrtErrorBusy (632014) while work runs; cnrtNotifierElapsedTime is ms, cnrtNotifierDuration us.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

typedef enum : int {
  cnrtSuccess = 0,
  cnrtErrorNotReady = 1,
  cnrtErrorInit = 100002,
  cnrtErrorNoDevice = 100004,
  cnrtErrorDeviceInvalid = 100005,
  cnrtErrorArgsInvalid = 100006,
  cnrtErrorSys = 100007,
  cnrtErrorSysNoMem = 100010,
  cnrtErrorInvalidResourceHandle = 100014,
  cnrtErrorIllegalState = 100015,
  cnrtErrorNotSupport = 100050,
  cnrtErrorOpsNotPermitted = 100051,
  cnrtErrorQueue = 100060,
  cnrtErrorNoMem = 100100,
  cnrtErrorNotFound = 100301,
  cnrtErrorInvalidKernel = 100302,
  cnrtErrorNoKernel = 101312,
  cnrtErrorQueueCaptureUnsupported = 100360,
  cnrtErrorQueueCaptureInvalidated = 100361,
  cnrtErrorQueueCaptureWrongThread = 100362,
  cnrtErrorQueueCaptureMerged = 100363,
  cnrtErrorQueueCaptureUnjoined = 100364,
  cnrtErrorQueueCaptureIsolation = 100365,
  cnrtErrorQueueCaptureUnmatched = 100366,
  cnrtErrorDevice = 632006,
  cnrtErrorMemcpyDirectionInvalid = 632013,
  cnrtErrorBusy = 632014,  // returned by the Query APIs while work runs
  cnrtErrorCndrvFuncCall = 632015,
  cnrtErrorUnknown = 999991,
} cnrtRet_t;

typedef enum : int {
  cnrtFuncTypeBlock = 1,
  cnrtFuncTypeBlock0 = 1,
  cnrtFuncTypeBlock1 = 2,
  cnrtFuncTypeUnion1 = 4,
  cnrtFuncTypeUnion2 = 8,
  cnrtFuncTypeUnion4 = 16,
  cnrtFuncTypeUnion8 = 32,
  cnrtFuncTypeUnion16 = 64,
  cnrtFuncTypeMutable = -1,
} cnrtFunctionType_t;

typedef struct {
  unsigned int x;
  unsigned int y;
  unsigned int z;
} cnrtDim3_t;  // 12 bytes, passed by value

// 0..5, NOT the HIP/CUDA order.
typedef enum : int {
  cnrtMemcpyHostToDev = 0,
  cnrtMemcpyDevToDev = 1,
  cnrtMemcpyDevToHost = 2,
  cnrtMemcpyHostToHost = 3,
  cnrtMemcpyPeerToPeer = 4,
  cnrtMemcpyNoDirection = 5,
} cnrtMemTransDir_t;

struct CNqueue_st;
typedef struct CNqueue_st* cnrtQueue_t;  // NULL: the default queue
#define cnrtQueuePerThread ((cnrtQueue_t)1)
#define cnrtQueueLegacy ((cnrtQueue_t)2)
struct CNnotifier_st;
typedef struct CNnotifier_st* cnrtNotifier_t;

enum cnrtNotifierFlags : int {
  CNRT_NOTIFIER_DEFAULT = 0x0,
  CNRT_NOTIFIER_DISABLE_TIMING_SW = 0x2,
  CNRT_NOTIFIER_DISABLE_TIMING = CNRT_NOTIFIER_DISABLE_TIMING_SW,
  CNRT_NOTIFIER_DISABLE_TIMING_ALL = 0x4,
  CNRT_NOTIFIER_INTERPROCESS = 0x8,
};
typedef enum cnrtNotifierFlags cnrtNotifierFlags_t;

enum cnrtQueueCaptureStatus : int {
  cnrtQueueCaptureStatusNone = 0,
  cnrtQueueCaptureStatusActive = 1,
  cnrtQueueCaptureStatusInvalidated = 2,
};
typedef enum cnrtQueueCaptureStatus cnrtQueueCaptureStatus_t;

struct CNtaskTopoEntity_st;
typedef struct CNtaskTopoEntity_st* cnrtTaskTopoEntity_t;

typedef struct cnrtUUID_st {
  char uuid[16];
} cnrtUUID_t;

// cnrtDeviceProp_V3: what cnrtGetDeviceProperties (#defined to cnrtGetDeviceProperties_V3) fills.
typedef struct cnrtDeviceProp_V3 {
  char name[256];
  int totalMem;  // MB
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

}  // extern "C"

static_assert(sizeof(cnrtDim3_t) == 12);
static_assert(sizeof(cnrtDeviceProp_t) == 584 &&
                  offsetof(cnrtDeviceProp_t, totalGlobalMemSize) == 456,
              "cnrtDeviceProp_V3's layout (CNRT 6.14.1)");
