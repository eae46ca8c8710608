// HIP's per-operation device timing interface, as ROCm 5.2's libamdhip64 exports it for
// roctracer (hip/amd_detail/hip_runtime_prof.h, installed by libamdhip64-dev) and the record it
// reports (roctracer's ext/prof_protocol.h, activity_record_t). Facts only: the simulated
// libamdhip64 produces these records (sim/activity.cpp) and prof reads them
// (interpose/adapters/hip_adapter.hpp). test/unit/hip_abi_test.cpp holds the enums against the
// real header when it is installed.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

// hip_runtime_prof.h: the ops a tool may enable (hipEnableActivityCallback's `op`).
enum HipVdiOpId {
  kHipVdiOpIdDispatch = 0,
  kHipVdiOpIdCopy = 1,
  kHipVdiOpIdBarrier = 2,
  kHipVdiOpIdNumber = 3
};

// hip_runtime_prof.h: the record's `kind` (OpenCL command types).
enum HipVdiCommandKind {
  kHipVdiCommandKernel = 0x11F0,
  kHipVdiCommandTask = 0x11F1,
  kHipVdiMemcpyDeviceToHost = 0x11F3,
  kHipHipVdiMemcpyHostToDevice = 0x11F4,
  kHipVdiMemcpyDeviceToDevice = 0x11F5,
  kHipVidMemcpyDeviceToHostRect = 0x1201,
  kHipVdiMemcpyHostToDeviceRect = 0x1202,
  kHipVdiMemcpyDeviceToDeviceRect = 0x1203,
  kHipVdiFillMemory = 0x1207,
};

// prof_protocol.h (roctracer, ROCm 5.x): activity_domain_t values used here.
enum { kActivityDomainHipOps = 2 };

typedef uint64_t activity_correlation_id_t;

// prof_protocol.h's activity_record_t (64 bytes on LP64).
struct hip_activity_record_t {
  uint32_t domain;  // ACTIVITY_DOMAIN_HIP_OPS
  uint32_t kind;    // a HipVdiCommandKind
  uint32_t op;      // a HipVdiOpId
  union {
    struct {
      activity_correlation_id_t correlation_id;
      uint64_t begin_ns;  // device begin, ns
      uint64_t end_ns;    // device end, ns
    };
    struct {
      uint32_t se;
      uint64_t cycle;
      uint64_t pc;
    } pc_sample;
  };
  union {
    struct {
      int device_id;
      uint64_t queue_id;
    };
    struct {
      uint32_t process_id;
      uint32_t thread_id;
    };
    activity_correlation_id_t external_id;
  };
  union {
    size_t bytes;             // copies
    const char* kernel_name;  // dispatches
  };
};

// hipInitActivityCallback(id_callback, op_callback, arg): the runtime calls `id_callback` with the
// correlation id it gives a command, on the thread whose API call creates it, and `op_callback`
// with the command's record once its device times are known.
typedef void (*hip_activity_id_callback_t)(activity_correlation_id_t id);
typedef void (*hip_activity_op_callback_t)(uint32_t op, void* record, void* arg);

}  // extern "C"

static_assert(sizeof(hip_activity_record_t) == 64, "activity_record_t is 64 bytes on LP64");
static_assert(offsetof(hip_activity_record_t, correlation_id) == 16 &&
                  offsetof(hip_activity_record_t, begin_ns) == 24 &&
                  offsetof(hip_activity_record_t, device_id) == 40 &&
                  offsetof(hip_activity_record_t, queue_id) == 48 &&
                  offsetof(hip_activity_record_t, bytes) == 56,
              "activity_record_t layout");
