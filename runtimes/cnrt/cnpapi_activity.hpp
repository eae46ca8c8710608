// Cambricon CNPAPI's activity interface (libcnpapi.so), the part prof uses for per-op device times:
// result codes, record types, the kernel / memcpy / memcpy-peer / memset / external-correlation
// records and the functions, as typedefs to resolve with dlsym. Facts only, from Cambricon's
// cnpapi.h, cnpapi_types.h and activity_api.h (CNToolkit 3.x, 2022; ../facts/activity-cnrt-acl.md
// section 1). The simulated libcnpapi (sim/activity_libs/cnpapi.cpp) writes these records and prof
// reads them (interpose/adapters/cnrt_adapter.hpp).
//
// The header numbers cnpapiActivityType implicitly; values past EXTERNAL_CORRELATION (27) differ
// between toolkit versions, and a pre-2021 header used another numbering altogether. prof only
// names the types below, and reads a record only when the library's own GetNextRecord hands it one
// whose whole struct lies inside the buffer's valid bytes.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

typedef enum {
  CNPAPI_SUCCESS = 0,
  CNPAPI_ERROR_NOT_INITIALIZED = 1,
  CNPAPI_ERROR_INVALID_DEVICE = 2,
  CNPAPI_ERROR_INVALID_ARGUMENT = 3,
  CNPAPI_ERROR_EVENT_GROUP_ENABLED = 4,
  CNPAPI_ERROR_INSUFFICIENT_MEMORY = 5,
  CNPAPI_ERROR_NO_DRIVER = 6,
  CNPAPI_ERROR_RESERVED0 = 7,
  CNPAPI_ERROR_UNKNOWN = 8,
  CNPAPI_ERROR_MAX_LIMIT_REACHED = 9,
  CNPAPI_ERROR_DRIVER_COMMUNICATION_FAILED = 10,
  CNPAPI_ERROR_DEVICE_BUSY = 11,
  CNPAPI_ERROR_ALREADY_IN_USE = 12,
  CNPAPI_ERROR_ACTIVITY_CALLBACK_NOT_REGISTERED = 13,
  CNPAPI_ERROR_ACTIVITY_CALLBACK_ALREADY_REGISTERED = 14,
  CNPAPI_ERROR_PMU_COUNTER_NOT_ENABLED = 15,
  CNPAPI_ERROR_INVALID_PMU_COUNTER_ID = 16,
  CNPAPI_ERROR_INVALID_PMU_COUNTER_NAME = 17,
  CNPAPI_ERROR_INVALID_DEVICE_TYPE = 18,
  CNPAPI_ERROR_UNSUPPORTED_DRIVER_VERSION = 19,
  CNPAPI_ERROR_INVALID_CHIP_TYPE = 20,
} cnpapiResult;

// activity_api.h (2022): implicit sequential values.
typedef enum {
  CNPAPI_ACTIVITY_TYPE_UNKNOWN = 0,
  CNPAPI_ACTIVITY_TYPE_KERNEL = 1,
  CNPAPI_ACTIVITY_TYPE_BANGC = 2,
  CNPAPI_ACTIVITY_TYPE_CNDRV_API = 3,
  CNPAPI_ACTIVITY_TYPE_CNRT_API = 4,
  CNPAPI_ACTIVITY_TYPE_CNML_API = 5,
  CNPAPI_ACTIVITY_TYPE_CNNL_API = 6,
  CNPAPI_ACTIVITY_TYPE_OVERHEAD = 7,
  CNPAPI_ACTIVITY_TYPE_RESERVED_0 = 8,
  CNPAPI_ACTIVITY_TYPE_MEMCPY = 9,
  CNPAPI_ACTIVITY_TYPE_MEMSET = 10,
  CNPAPI_ACTIVITY_TYPE_MEMCPY_PTOP = 11,
  CNPAPI_ACTIVITY_TYPE_CNNL_EXTRA_API = 12,
  CNPAPI_ACTIVITY_TYPE_NAME = 13,
  CNPAPI_ACTIVITY_TYPE_ATOMIC_OPERATION = 14,
  CNPAPI_ACTIVITY_TYPE_NOTIFIER = 15,
  CNPAPI_ACTIVITY_TYPE_CNCL_API = 16,
  CNPAPI_ACTIVITY_TYPE_SOURCELOCATOR = 17,
  CNPAPI_ACTIVITY_TYPE_FUNCTION = 18,
  CNPAPI_ACTIVITY_TYPE_MODULE = 19,
  CNPAPI_ACTIVITY_TYPE_PC_SAMPLING = 20,
  CNPAPI_ACTIVITY_TYPE_QUEUE = 21,
  CNPAPI_ACTIVITY_TYPE_CONTEXT = 22,
  CNPAPI_ACTIVITY_TYPE_DEVICE = 23,
  CNPAPI_ACTIVITY_TYPE_PCIE = 24,
  CNPAPI_ACTIVITY_TYPE_PC_SAMPLING_RECORD_INFO = 25,
  CNPAPI_ACTIVITY_TYPE_RESERVED_1 = 26,
  CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION = 27,
  CNPAPI_ACTIVITY_TYPE_RESERVED_2 = 28,
  CNPAPI_ACTIVITY_TYPE_SIZE = 29,
} cnpapiActivityType;

typedef enum {
  CNPAPI_ACTIVITY_FLAG_NONE = 0,
  CNPAPI_ACTIVITY_FLAG_MEMCPY_ASYNC = 1 << 0,
  CNPAPI_ACTIVITY_FLAG_MEMSET_ASYNC = 1 << 0,
} cnpapiActivityFlag;

typedef enum {
  CNPAPI_ACTIVITY_MEMCPY_TYPE_UNKNOWN = 0,
  CNPAPI_ACTIVITY_MEMCPY_TYPE_HTOD = 1,
  CNPAPI_ACTIVITY_MEMCPY_TYPE_DTOH = 2,
  CNPAPI_ACTIVITY_MEMCPY_TYPE_DTOD = 3,
  CNPAPI_ACTIVITY_MEMCPY_TYPE_HTOH = 4,
  CNPAPI_ACTIVITY_MEMCPY_TYPE_PTOP = 5,
} cnpapiActivityMemcpyType;

typedef enum {
  CNPAPI_EXTERNAL_CORRELATION_TYPE_INVALID = 0,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_UNKNOWN = 1,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0 = 2,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM1 = 3,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM2 = 4,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_SIZE = 5,
  CNPAPI_EXTERNAL_CORRELATION_TYPE_FORCE_INT = 0x7fffffff
} cnpapiActivityExternalCorrelationType;

// Every record starts with its type.
typedef struct cnpapiActivity {
  cnpapiActivityType type;
} cnpapiActivity;

// Device times are ns in CNPAPI's clock (cnpapiGetTimestamp), whose base the header does not state.
typedef struct cnpapiActivityKernel {
  cnpapiActivityType type;
  uint64_t correlation_id;  // the driver's (cndrv) correlation id
  union {
    uint64_t start_ts;  // deprecated name
    uint64_t start;
  };
  union {
    uint64_t end_ts;  // deprecated name
    uint64_t end;
  };
  uint64_t received;  // 0: not collected
  uint64_t queued;
  uint64_t submitted;
  uint64_t device_id;
  const char* name;
  uint64_t queue_id;
  uint64_t runtime_correlation_id;  // CNRT's correlation id
  uint64_t kernel_type;
  uint32_t dimx;
  uint32_t dimy;
  uint32_t dimz;
  uint64_t context_id;
} cnpapiActivityKernel;

typedef struct cnpapiActivityMemcpy {
  cnpapiActivityType type;
  cnpapiActivityFlag flags;
  uint64_t correlation_id;
  uint64_t bytes;
  cnpapiActivityMemcpyType copy_type;
  uint64_t start;
  uint64_t end;
  uint64_t received;
  uint64_t queued;
  uint64_t submitted;
  uint64_t device_id;  // (uint64_t)-1: n/a
  uint64_t queue_id;   // 0: n/a or the default queue
  uint64_t runtime_correlation_id;
  uint64_t context_id;
} cnpapiActivityMemcpy;

typedef struct cnpapiActivityMemcpyPtoP {
  cnpapiActivityType type;
  cnpapiActivityFlag flags;
  uint64_t correlation_id;
  uint64_t bytes;
  cnpapiActivityMemcpyType copy_type;
  uint64_t start;
  uint64_t end;
  uint64_t received;
  uint64_t queued;
  uint64_t submitted;
  uint64_t device_id;
  uint64_t src_device_id;
  uint64_t dst_device_id;
  uint64_t queue_id;
  uint64_t runtime_correlation_id;
  uint64_t context_id;
} cnpapiActivityMemcpyPtoP;

typedef struct cnpapiActivityMemset {
  cnpapiActivityType type;
  cnpapiActivityFlag flags;
  uint64_t correlation_id;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint64_t received;
  uint64_t queued;
  uint64_t submitted;
  uint64_t device_id;
  uint64_t queue_id;
  uint64_t runtime_correlation_id;
  uint64_t value;
  uint64_t context_id;
} cnpapiActivityMemset;

// Binds the driver's correlation id of an API call (and of the work it enqueued) to the id the
// tool pushed on the calling thread.
typedef struct cnpapiActivityExternalCorrelation {
  cnpapiActivityType type;
  cnpapiActivityExternalCorrelationType external_type;
  uint64_t external_id;
  uint64_t correlation_id;
} cnpapiActivityExternalCorrelation;

// The tool's buffers: uint64_t* (8-byte aligned records), not CUPTI's uint8_t*.
typedef void (*cnpapi_request)(uint64_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*cnpapi_complete)(uint64_t* buffer, size_t size, size_t validSize);

// The functions, resolved with dlsym (prof never links libcnpapi).
typedef cnpapiResult (*cnpapiInit_t)();
typedef cnpapiResult (*cnpapiRelease_t)();
typedef uint64_t (*cnpapiGetTimestamp_t)();
typedef cnpapiResult (*cnpapiGetResultString_t)(cnpapiResult result, const char** str);
typedef cnpapiResult (*cnpapiActivityEnable_t)(cnpapiActivityType type);
typedef cnpapiResult (*cnpapiActivityDisable_t)(cnpapiActivityType type);
typedef cnpapiResult (*cnpapiActivityRegisterCallbacks_t)(cnpapi_request requested,
                                                          cnpapi_complete completed);
// `*record` null: the buffer's first record; else the one after it. CNPAPI_ERROR_MAX_LIMIT_REACHED
// past the last.
typedef cnpapiResult (*cnpapiActivityGetNextRecord_t)(void* buffer, size_t validSize,
                                                      cnpapiActivity** record);
typedef cnpapiResult (*cnpapiActivityFlushAll_t)();
typedef cnpapiResult (*cnpapiActivityPushExternalCorrelationId_t)(
    cnpapiActivityExternalCorrelationType type, uint64_t id);
typedef cnpapiResult (*cnpapiActivityPopExternalCorrelationId_t)(
    cnpapiActivityExternalCorrelationType type, uint64_t* lastId);

}  // extern "C"

// Offsets derived from the field order on LP64 (4-byte enums, 8-byte alignment of uint64_t).
static_assert(sizeof(cnpapiActivityType) == 4 && sizeof(cnpapiActivityFlag) == 4 &&
                  sizeof(cnpapiActivityMemcpyType) == 4 &&
                  sizeof(cnpapiActivityExternalCorrelationType) == 4,
              "CNPAPI's enums are int-sized");
static_assert(offsetof(cnpapiActivityKernel, correlation_id) == 8 &&
                  offsetof(cnpapiActivityKernel, start) == 16 &&
                  offsetof(cnpapiActivityKernel, end) == 24 &&
                  offsetof(cnpapiActivityKernel, device_id) == 56 &&
                  offsetof(cnpapiActivityKernel, name) == 64 &&
                  offsetof(cnpapiActivityKernel, queue_id) == 72 &&
                  offsetof(cnpapiActivityKernel, runtime_correlation_id) == 80 &&
                  offsetof(cnpapiActivityKernel, dimx) == 96 &&
                  offsetof(cnpapiActivityKernel, context_id) == 112 &&
                  sizeof(cnpapiActivityKernel) == 120,
              "cnpapiActivityKernel layout");
static_assert(offsetof(cnpapiActivityMemcpy, flags) == 4 &&
                  offsetof(cnpapiActivityMemcpy, correlation_id) == 8 &&
                  offsetof(cnpapiActivityMemcpy, bytes) == 16 &&
                  offsetof(cnpapiActivityMemcpy, copy_type) == 24 &&
                  offsetof(cnpapiActivityMemcpy, start) == 32 &&
                  offsetof(cnpapiActivityMemcpy, end) == 40 &&
                  offsetof(cnpapiActivityMemcpy, device_id) == 72 &&
                  offsetof(cnpapiActivityMemcpy, queue_id) == 80 &&
                  offsetof(cnpapiActivityMemcpy, runtime_correlation_id) == 88 &&
                  sizeof(cnpapiActivityMemcpy) == 104,
              "cnpapiActivityMemcpy layout");
static_assert(offsetof(cnpapiActivityMemcpyPtoP, start) == 32 &&
                  offsetof(cnpapiActivityMemcpyPtoP, end) == 40 &&
                  offsetof(cnpapiActivityMemcpyPtoP, src_device_id) == 80 &&
                  offsetof(cnpapiActivityMemcpyPtoP, queue_id) == 96 &&
                  sizeof(cnpapiActivityMemcpyPtoP) == 120,
              "cnpapiActivityMemcpyPtoP layout");
static_assert(offsetof(cnpapiActivityMemset, correlation_id) == 8 &&
                  offsetof(cnpapiActivityMemset, bytes) == 16 &&
                  offsetof(cnpapiActivityMemset, start) == 24 &&
                  offsetof(cnpapiActivityMemset, end) == 32 &&
                  offsetof(cnpapiActivityMemset, queue_id) == 72 &&
                  offsetof(cnpapiActivityMemset, value) == 88 &&
                  sizeof(cnpapiActivityMemset) == 104,
              "cnpapiActivityMemset layout");
static_assert(offsetof(cnpapiActivityExternalCorrelation, external_type) == 4 &&
                  offsetof(cnpapiActivityExternalCorrelation, external_id) == 8 &&
                  offsetof(cnpapiActivityExternalCorrelation, correlation_id) == 16 &&
                  sizeof(cnpapiActivityExternalCorrelation) == 24,
              "cnpapiActivityExternalCorrelation layout");
