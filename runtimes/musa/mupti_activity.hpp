// MUPTI (Moore Threads' CUPTI, libmupti.so): the activity interface prof reads each MUSA op's
// device times from, and the records it delivers. Facts only: the simulated libmupti.so writes
// these records (sim/activity_libs/mupti.cpp) and prof reads them
// (interpose/adapters/musa_adapter.hpp).
//
// What is known (docs: /work/facts/activity-hip-musa.md section 2, from Moore Threads' kineto port
// and programs built against mupti.h): the library's name, the functions' names and shapes, the
// record types' names and field names. NOT known: any numeric value and any layout. Those are
// CUPTI's (CUDA 11.x cupti_activity.h / cupti_result.h, same section 3), with the MUPTI prefix.
// Every row says which it is:
//   [confirmed]  the name is MUPTI's (seen in MUPTI users' code); the value is still CUPTI's unless
//   said [assumed]    taken from CUPTI, name and value; nothing MUPTI-side seen
// A correction is one line here: the simulator and prof both follow.
//
// Because the values and layouts are assumed, prof defends itself (musa_adapter.hpp): it walks a
// buffer only with muptiActivityGetNextRecord, uses a record only when it lies wholly inside the
// buffer, its `kind` is one prof enabled, and (ops) 0 < start <= end, and ignores anything else.
//
// Against a real MUPTI (mupti.h / mupti_activity.h under ${MUSA_SOURCE_DIR}/extras/MUPTI/include),
// check before trusting this file:
//   - every enum value below (MUPTI has kinds CUPTI has not: MEMORY_ATOMIC, MEMORY_ATOMIC_VALUE,
//     MEMORY_TRANSFER, so its numbering may diverge from CUPTI's);
//   - sizeof and offsetof of kind, start, end, deviceId, streamId, correlationId in
//     MUpti_ActivityKernel6 / Memcpy4 / Memset3, and of externalKind, externalId, correlationId in
//     MUpti_ActivityExternalCorrelation, against the static_asserts at the end of this file;
//   - that records are packed and 8-aligned (CUPTI's PACKED_ALIGNMENT);
//   - the clock of start/end: prof takes them as CLOCK_MONOTONIC ns (the simulator's); CUPTI does
//     not promise that, and a real MUPTI may need mapping through muptiGetTimestamp;
//   - that muptiActivityPushExternalCorrelationId is implemented (kineto's port notes it was not,
//     at one time) and that, as in CUPTI, EXTERNAL_CORRELATION records come only with API records
//     (RUNTIME enabled too);
//   - the SONAME (only "libmupti.so" is known).
#pragma once
#include <cstddef>
#include <cstdint>

namespace prof::mupti {

// MUptiResult (CUptiResult's values).
enum Result : int {
  kSuccess = 0,                // MUPTI_SUCCESS [confirmed]
  kErrorInvalidParameter = 1,  // MUPTI_ERROR_INVALID_PARAMETER [assumed]
  kErrorInvalidOperation = 7,  // MUPTI_ERROR_INVALID_OPERATION [assumed]
  kErrorOutOfMemory = 8,       // MUPTI_ERROR_OUT_OF_MEMORY [assumed]
  kErrorMaxLimitReached =
      12,  // MUPTI_ERROR_MAX_LIMIT_REACHED [confirmed]: GetNextRecord past the last record
  kErrorNotInitialized = 15,  // MUPTI_ERROR_NOT_INITIALIZED [assumed]: no MUSA runtime loaded
  kErrorQueueEmpty = 18,      // MUPTI_ERROR_QUEUE_EMPTY [assumed]: pop with nothing pushed
  kErrorInvalidKind = 21,     // MUPTI_ERROR_INVALID_KIND [assumed]
  kErrorNotSupported = 27,    // MUPTI_ERROR_NOT_SUPPORTED [assumed]
  kErrorUnknown = 999,        // MUPTI_ERROR_UNKNOWN [assumed]
};

// MUpti_ActivityKind (CUpti_ActivityKind's values; a 4-byte enum, the first field of every record).
enum ActivityKind : uint32_t {
  kActivityKindInvalid = 0,               // MUPTI_ACTIVITY_KIND_INVALID [assumed]
  kActivityKindMemcpy = 1,                // MUPTI_ACTIVITY_KIND_MEMCPY [confirmed]
  kActivityKindMemset = 2,                // MUPTI_ACTIVITY_KIND_MEMSET [confirmed]
  kActivityKindKernel = 3,                // MUPTI_ACTIVITY_KIND_KERNEL [confirmed]
  kActivityKindRuntime = 5,               // MUPTI_ACTIVITY_KIND_RUNTIME [confirmed]
  kActivityKindConcurrentKernel = 10,     // MUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL [confirmed]
  kActivityKindExternalCorrelation = 39,  // MUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION [confirmed]
};

// MUpti_ExternalCorrelationKind (CUpti_ExternalCorrelationKind's values).
enum ExternalCorrelationKind : uint32_t {
  kExternalCorrelationKindInvalid = 0,  // MUPTI_EXTERNAL_CORRELATION_KIND_INVALID [assumed]
  kExternalCorrelationKindCustom0 = 3,  // MUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 [confirmed]
  kExternalCorrelationKindCustom1 = 4,  // MUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 [confirmed]
  kExternalCorrelationKindSize = 6,     // MUPTI_EXTERNAL_CORRELATION_KIND_SIZE [assumed]
};

// muptiActivityFlushAll's flag: 0, no flag (completed records, full buffers or not). The forced
// flush (MUPTI_ACTIVITY_FLAG_FLUSH_FORCED [confirmed name], value not recorded) also hands back
// records of work still in flight, which would fail the start <= end check: prof does not use it.
inline constexpr uint32_t kActivityFlagNone = 0;

// MUpti_ActivityMemcpyKind's names [confirmed]: HTOD, DTOH, HTOA, ATOH, ATOA, ATOD, DTOA, DTOD,
// HTOH. Values not recorded (prof takes a copy's direction from its call): the simulator writes 0.

// Records: CUPTI's PACKED_ALIGNMENT, packed and 8-aligned; layouts [assumed] from CUDA 11.x,
// field names [confirmed] where MUPTI users read them.
#define PROF_MUPTI_RECORD __attribute__((__packed__)) __attribute__((aligned(8)))

// MUpti_Activity: what every record starts with.
struct PROF_MUPTI_RECORD Activity {
  uint32_t kind;  // an ActivityKind
};

// MUpti_ActivityExternalCorrelation (CUPTI: 24 bytes). Precedes the API record of a call made
// while an external id was pushed, one per external kind pushed; correlationId is the call's, and
// its kernel's, copy's or memset's.
struct PROF_MUPTI_RECORD ActivityExternalCorrelation {
  uint32_t kind;          // kActivityKindExternalCorrelation
  uint32_t externalKind;  // an ExternalCorrelationKind
  uint64_t externalId;    // what the tool pushed
  uint32_t correlationId;
  uint32_t reserved;
};

// MUpti_ActivityKernel6 (CUPTI: 168 bytes). Enum-typed fields are 4 bytes, as in CUPTI.
struct PROF_MUPTI_RECORD ActivityKernel6 {
  uint32_t kind;  // kActivityKindKernel or kActivityKindConcurrentKernel
  uint8_t cacheConfig;
  uint8_t sharedMemoryConfig;
  uint16_t registersPerThread;
  uint32_t partitionedGlobalCacheRequested;
  uint32_t partitionedGlobalCacheExecuted;
  uint64_t start;  // device begin, ns
  uint64_t end;    // device end, ns
  uint64_t completed;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  int32_t gridX, gridY, gridZ;
  int32_t blockX, blockY, blockZ;
  int32_t staticSharedMemory;
  int32_t dynamicSharedMemory;
  uint32_t localMemoryPerThread;
  uint32_t localMemoryTotal;
  uint32_t correlationId;
  int64_t gridId;
  const char* name;
  void* reserved0;
  uint64_t queued;
  uint64_t submitted;
  uint8_t launchType;
  uint8_t isSharedMemoryCarveoutRequested;
  uint8_t sharedMemoryCarveoutRequested;
  uint8_t padding;
  uint32_t sharedMemoryExecuted;
  uint64_t graphNodeId;
  uint32_t shmemLimitConfig;
  uint32_t graphId;
  void* pAccessPolicyWindow;
};

// MUpti_ActivityMemcpy4 (CUPTI: 80 bytes on LP64).
struct PROF_MUPTI_RECORD ActivityMemcpy4 {
  uint32_t kind;  // kActivityKindMemcpy
  uint8_t copyKind;
  uint8_t srcKind;
  uint8_t dstKind;
  uint8_t flags;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
  uint32_t runtimeCorrelationId;
  uint32_t pad;
  void* reserved0;
  uint64_t graphNodeId;
  uint32_t graphId;
  uint32_t padding;
};

// MUpti_ActivityMemset3 (CUPTI: 80 bytes on LP64).
struct PROF_MUPTI_RECORD ActivityMemset3 {
  uint32_t kind;  // kActivityKindMemset
  uint32_t value;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
  uint16_t flags;
  uint16_t memoryKind;
  uint32_t pad;
  void* reserved0;
  uint64_t graphNodeId;
  uint32_t graphId;
  uint32_t padding;
};

#undef PROF_MUPTI_RECORD

// MUcontext: an opaque handle (CUcontext's shape).
using Context = void*;

// The functions, as MUPTI's users call them (shapes [confirmed]; the parameter types uint32_t,
// uint64_t and the enums' 4 bytes [assumed] from CUPTI).
using BufferRequestedFn = void (*)(uint8_t** buffer, size_t* size, size_t* max_records);
using BufferCompletedFn = void (*)(Context context, uint32_t stream_id, uint8_t* buffer,
                                   size_t size, size_t valid_size);
using ActivityRegisterCallbacksFn = int (*)(BufferRequestedFn,
                                            BufferCompletedFn);  // muptiActivityRegisterCallbacks
using ActivityEnableFn = int (*)(uint32_t kind);                 // muptiActivityEnable
using ActivityDisableFn = int (*)(uint32_t kind);                // muptiActivityDisable
using ActivityFlushAllFn = int (*)(uint32_t flag);               // muptiActivityFlushAll
// muptiActivityGetNextRecord: *record == nullptr, the buffer's first record; kErrorMaxLimitReached
// past the last.
using ActivityGetNextRecordFn = int (*)(uint8_t* buffer, size_t valid_size, Activity** record);
// muptiActivityPushExternalCorrelationId, muptiActivityPopExternalCorrelationId (last_id may be
// null).
using ActivityPushExternalCorrelationIdFn = int (*)(uint32_t kind, uint64_t id);
using ActivityPopExternalCorrelationIdFn = int (*)(uint32_t kind, uint64_t* last_id);

}  // namespace prof::mupti

// CUPTI's layouts, as section 3 of the facts records them: what to compare with a real mupti.h.
static_assert(sizeof(prof::mupti::ActivityExternalCorrelation) == 24 &&
                  offsetof(prof::mupti::ActivityExternalCorrelation, externalId) == 8 &&
                  offsetof(prof::mupti::ActivityExternalCorrelation, correlationId) == 16,
              "MUpti_ActivityExternalCorrelation as CUpti_ActivityExternalCorrelation");
static_assert(sizeof(prof::mupti::ActivityKernel6) == 168 &&
                  offsetof(prof::mupti::ActivityKernel6, start) == 16 &&
                  offsetof(prof::mupti::ActivityKernel6, end) == 24 &&
                  offsetof(prof::mupti::ActivityKernel6, deviceId) == 40 &&
                  offsetof(prof::mupti::ActivityKernel6, streamId) == 48 &&
                  offsetof(prof::mupti::ActivityKernel6, correlationId) == 92 &&
                  offsetof(prof::mupti::ActivityKernel6, name) == 104 &&
                  offsetof(prof::mupti::ActivityKernel6, graphId) == 156,
              "MUpti_ActivityKernel6 as CUpti_ActivityKernel6");
static_assert(sizeof(prof::mupti::ActivityMemcpy4) == 80 &&
                  offsetof(prof::mupti::ActivityMemcpy4, bytes) == 8 &&
                  offsetof(prof::mupti::ActivityMemcpy4, start) == 16 &&
                  offsetof(prof::mupti::ActivityMemcpy4, deviceId) == 32 &&
                  offsetof(prof::mupti::ActivityMemcpy4, streamId) == 40 &&
                  offsetof(prof::mupti::ActivityMemcpy4, correlationId) == 44 &&
                  offsetof(prof::mupti::ActivityMemcpy4, reserved0) == 56,
              "MUpti_ActivityMemcpy4 as CUpti_ActivityMemcpy4 (LP64)");
static_assert(sizeof(prof::mupti::ActivityMemset3) == 80 &&
                  offsetof(prof::mupti::ActivityMemset3, start) == 16 &&
                  offsetof(prof::mupti::ActivityMemset3, deviceId) == 32 &&
                  offsetof(prof::mupti::ActivityMemset3, correlationId) == 44 &&
                  offsetof(prof::mupti::ActivityMemset3, memoryKind) == 50 &&
                  offsetof(prof::mupti::ActivityMemset3, reserved0) == 56,
              "MUpti_ActivityMemset3 as CUpti_ActivityMemset3 (LP64)");
