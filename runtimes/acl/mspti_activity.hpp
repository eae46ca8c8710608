// Huawei MSPTI's activity interface (libmspti.so, mspti_activity.h and mspti_result.h of the
// MindStudio Profiling Tools Interface): the CUPTI-like per-op device times prof reads on Ascend.
// Facts only, written from docs/facts (activity-cnrt-acl.md §2b): names, values and record layouts
// as the header declares them, no vendor code. The simulated libmspti.so produces these records
// (sim/activity_libs/mspti.cpp) and prof reads them (interpose/adapters/acl_adapter.hpp).
//
// The records are declared packed and 8-byte aligned in the header (PACKED_ALIGNMENT:
// __attribute__((__packed__)) __attribute__((aligned(8)))): fields follow each other with no
// padding, and each record's size is rounded up to 8. The static_asserts below hold that layout.
#pragma once
#include <cstddef>
#include <cstdint>

#define PROF_MSPTI_PACKED_ALIGNMENT __attribute__((__packed__)) __attribute__((aligned(8)))

extern "C" {

typedef enum {
  MSPTI_SUCCESS = 0,
  MSPTI_ERROR_INVALID_PARAMETER = 1,
  MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 2,
  MSPTI_ERROR_MAX_LIMIT_REACHED = 3,  // msptiActivityGetNextRecord: no more records in the buffer
  MSPTI_ERROR_DEVICE_OFFLINE = 4,
  MSPTI_ERROR_QUEUE_EMPTY = 5,
  MSPTI_ERROR_INNER = 999,
  MSPTI_ERROR_FORCE_INT = 0x7fffffff
} msptiResult;

#define MSPTI_INVALID_DEVICE_ID ((uint32_t)0xFFFFFFFFU)
#define MSPTI_INVALID_STREAM_ID ((uint32_t)0xFFFFFFFFU)
#define MSPTI_INVALID_CORRELATION_ID ((uint64_t)0)

typedef enum {
  MSPTI_ACTIVITY_KIND_INVALID = 0,
  MSPTI_ACTIVITY_KIND_MARKER = 1,
  MSPTI_ACTIVITY_KIND_KERNEL = 2,
  MSPTI_ACTIVITY_KIND_API = 3,
  MSPTI_ACTIVITY_KIND_HCCL = 4,
  MSPTI_ACTIVITY_KIND_MEMORY = 5,
  MSPTI_ACTIVITY_KIND_MEMSET = 6,
  MSPTI_ACTIVITY_KIND_MEMCPY = 7,
  MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 8,
  MSPTI_ACTIVITY_KIND_COMMUNICATION = 9,
  MSPTI_ACTIVITY_KIND_COUNT,
  MSPTI_ACTIVITY_KIND_FORCE_INT = 0x7fffffff
} msptiActivityKind;

typedef enum {
  MSPTI_EXTERNAL_CORRELATION_KIND_INVALID = 0,
  MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN = 1,
  MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 = 2,
  MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 = 3,
  MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 = 4,
  MSPTI_EXTERNAL_CORRELATION_KIND_SIZE,
  MSPTI_EXTERNAL_CORRELATION_KIND_FORCE_INT = 0x7fffffff
} msptiExternalCorrelationKind;

// NB: not CNPAPI's order (CNPAPI has HTOD = 1).
typedef enum {
  MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN = 0,
  MSPTI_ACTIVITY_MEMCPY_KIND_HTOH = 1,
  MSPTI_ACTIVITY_MEMCPY_KIND_HTOD = 2,
  MSPTI_ACTIVITY_MEMCPY_KIND_DTOH = 3,
  MSPTI_ACTIVITY_MEMCPY_KIND_DTOD = 4,
  MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT = 5
} msptiActivityMemcpyKind;

// Every record starts with its kind.
typedef struct PROF_MSPTI_PACKED_ALIGNMENT {
  msptiActivityKind kind;
} msptiActivity;

typedef struct PROF_MSPTI_PACKED_ALIGNMENT {  // MSPTI_ACTIVITY_KIND_API
  msptiActivityKind kind;
  uint64_t start;  // ns
  uint64_t end;    // ns
  struct {
    uint32_t processId;
    uint32_t threadId;
  } pt;
  uint64_t correlationId;
  const char* name;
} msptiActivityApi;

typedef struct PROF_MSPTI_PACKED_ALIGNMENT {  // MSPTI_ACTIVITY_KIND_KERNEL
  msptiActivityKind kind;
  uint64_t start;  // device begin, ns
  uint64_t end;    // device end, ns
  struct {
    uint32_t deviceId;
    uint32_t streamId;
  } ds;
  uint64_t correlationId;
  const char* type;
  const char* name;
} msptiActivityKernel;

typedef struct PROF_MSPTI_PACKED_ALIGNMENT {  // MSPTI_ACTIVITY_KIND_MEMCPY
  msptiActivityKind kind;
  msptiActivityMemcpyKind copyKind;
  uint64_t bytes;
  uint64_t start;  // ns
  uint64_t end;    // ns
  uint32_t deviceId;
  uint32_t streamId;
  uint64_t correlationId;
  uint8_t isAsync;
} msptiActivityMemcpy;

typedef struct PROF_MSPTI_PACKED_ALIGNMENT {  // MSPTI_ACTIVITY_KIND_MEMSET
  msptiActivityKind kind;
  uint32_t value;
  uint64_t bytes;
  uint64_t start;  // ns
  uint64_t end;    // ns
  uint32_t deviceId;
  uint32_t streamId;
  uint64_t correlationId;
  uint8_t isAsync;
} msptiActivityMemset;

typedef struct PROF_MSPTI_PACKED_ALIGNMENT {  // MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
  msptiActivityKind kind;
  msptiExternalCorrelationKind externalKind;
  uint64_t externalId;     // what the tool pushed
  uint64_t correlationId;  // the runtime's id, which the kernel / memcpy / memset record carries
} msptiActivityExternalCorrelation;

// The tool's buffers: requested when MSPTI needs one, handed back full (or on a flush) with the
// bytes of records written.
typedef void (*msptiBuffersCallbackRequestFunc)(uint8_t** buffer, size_t* size,
                                                size_t* maxNumRecords);
typedef void (*msptiBuffersCallbackCompleteFunc)(uint8_t* buffer, size_t size, size_t validSize);

// The functions prof resolves with dlsym, as pointer types.
typedef msptiResult (*msptiActivityRegisterCallbacks_t)(
    msptiBuffersCallbackRequestFunc funcBufferRequested,
    msptiBuffersCallbackCompleteFunc funcBufferCompleted);
typedef msptiResult (*msptiActivityEnable_t)(msptiActivityKind kind);
typedef msptiResult (*msptiActivityDisable_t)(msptiActivityKind kind);
// MSPTI_ERROR_MAX_LIMIT_REACHED when the buffer holds no further record.
typedef msptiResult (*msptiActivityGetNextRecord_t)(uint8_t* buffer, size_t validBufferSizeBytes,
                                                    msptiActivity** record);
typedef msptiResult (*msptiActivityFlushAll_t)(uint32_t flag);     // flag: reserved
typedef msptiResult (*msptiActivityFlushPeriod_t)(uint32_t time);  // 0 disables
typedef msptiResult (*msptiActivityPushExternalCorrelationId_t)(msptiExternalCorrelationKind kind,
                                                                uint64_t id);
typedef msptiResult (*msptiActivityPopExternalCorrelationId_t)(msptiExternalCorrelationKind kind,
                                                               uint64_t* lastId);

}  // extern "C"

static_assert(sizeof(msptiActivityKind) == 4 && sizeof(msptiExternalCorrelationKind) == 4 &&
                  sizeof(msptiActivityMemcpyKind) == 4 && sizeof(msptiResult) == 4,
              "MSPTI's enums are ints");
static_assert(sizeof(msptiActivity) == 8 && alignof(msptiActivity) == 8,
              "msptiActivity: 4 bytes, rounded to 8");
static_assert(offsetof(msptiActivityApi, start) == 4 && offsetof(msptiActivityApi, end) == 12 &&
                  offsetof(msptiActivityApi, pt) == 20 &&
                  offsetof(msptiActivityApi, correlationId) == 28 &&
                  offsetof(msptiActivityApi, name) == 36 && sizeof(msptiActivityApi) == 48,
              "msptiActivityApi: packed, 44 bytes, rounded to 48");
static_assert(offsetof(msptiActivityKernel, start) == 4 &&
                  offsetof(msptiActivityKernel, end) == 12 &&
                  offsetof(msptiActivityKernel, ds) == 20 &&
                  offsetof(msptiActivityKernel, correlationId) == 28 &&
                  offsetof(msptiActivityKernel, type) == 36 &&
                  offsetof(msptiActivityKernel, name) == 44 && sizeof(msptiActivityKernel) == 56 &&
                  alignof(msptiActivityKernel) == 8,
              "msptiActivityKernel: packed, 52 bytes, rounded to 56");
static_assert(offsetof(msptiActivityMemcpy, copyKind) == 4 &&
                  offsetof(msptiActivityMemcpy, bytes) == 8 &&
                  offsetof(msptiActivityMemcpy, start) == 16 &&
                  offsetof(msptiActivityMemcpy, end) == 24 &&
                  offsetof(msptiActivityMemcpy, deviceId) == 32 &&
                  offsetof(msptiActivityMemcpy, streamId) == 36 &&
                  offsetof(msptiActivityMemcpy, correlationId) == 40 &&
                  offsetof(msptiActivityMemcpy, isAsync) == 48 && sizeof(msptiActivityMemcpy) == 56,
              "msptiActivityMemcpy: packed, 49 bytes, rounded to 56");
static_assert(offsetof(msptiActivityMemset, value) == 4 &&
                  offsetof(msptiActivityMemset, bytes) == 8 &&
                  offsetof(msptiActivityMemset, start) == 16 &&
                  offsetof(msptiActivityMemset, end) == 24 &&
                  offsetof(msptiActivityMemset, deviceId) == 32 &&
                  offsetof(msptiActivityMemset, streamId) == 36 &&
                  offsetof(msptiActivityMemset, correlationId) == 40 &&
                  offsetof(msptiActivityMemset, isAsync) == 48 && sizeof(msptiActivityMemset) == 56,
              "msptiActivityMemset: packed, 49 bytes, rounded to 56");
static_assert(offsetof(msptiActivityExternalCorrelation, externalKind) == 4 &&
                  offsetof(msptiActivityExternalCorrelation, externalId) == 8 &&
                  offsetof(msptiActivityExternalCorrelation, correlationId) == 16 &&
                  sizeof(msptiActivityExternalCorrelation) == 24,
              "msptiActivityExternalCorrelation: 24 bytes");
