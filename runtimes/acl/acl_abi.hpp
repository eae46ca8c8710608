// Huawei Ascend ACL ABI (libascendcl; aclrt* in libacl_rt.so in newer CANN) as prof declares it:
// the types and values runtimes/acl/acl_api.def needs. From ../shared/reference/vendor-api.md §4
// (the open CANN runtime's acl_rt.h, ACL 1.17.0, and torch_npu's ACL 1.15 acl_mdl.h/acl_op.h),
// except where marked "assumed": the data-buffer, tensor-description, dataset and model-load
// helpers a program needs to run operators and models, whose prototypes the reference does not
// quote (CANN's documented ones). test/unit/acl_abi_test.cpp holds them against
// test/unit/acl_abi_reference.h.
//
// Where ACL differs from HIP/CUDA (each has a test): copies and memsets take a destination capacity
// before the byte count (aclrtMemcpy(dst, destMax, src, count, kind)); queries report through an
// out-parameter; copy kinds run 0..7; work is named (operator type, model), not a function address.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

typedef int aclError;
enum : int {
  ACL_SUCCESS = 0,
  ACL_ERROR_INVALID_PARAM = 100000,
  ACL_ERROR_UNINITIALIZE = 100001,       // assumed (CANN's numbering)
  ACL_ERROR_REPEAT_INITIALIZE = 100002,  // assumed
  ACL_ERROR_INVALID_FILE = 100003,       // assumed
  ACL_ERROR_RT_PARAM_INVALID = 107000,   // assumed: a bad handle
  ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004,
  ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006,
  ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED = 507903,
};

typedef void* aclrtStream;
// mstx's range id (torch_npu's ms_tools_ext.h; MSTX_INVALID_ID 0): runtimes/acl/mstx_api.def.
typedef uint64_t mstxRangeId;
typedef void* aclrtEvent;
typedef void* aclrtFuncHandle;
typedef void* aclrtBinHandle;
typedef void* aclmdlRI;
typedef void* aclrtArgsHandle;

typedef enum aclrtMemcpyKind : int {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy : int {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

typedef enum aclrtEventRecordedStatus : int {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtStreamStatus : int {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

typedef enum aclrtLastErrLevel : int { ACL_RT_THREAD_LEVEL = 0 } aclrtLastErrLevel;

typedef enum : int {
  ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
  ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
  ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2,
} aclmdlRICaptureStatus;
typedef enum : int {
  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
  ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,
  ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2,
} aclmdlRICaptureMode;  // assumed (CUDA's capture modes)

typedef struct aclrtLaunchKernelAttr aclrtLaunchKernelAttr;
typedef struct aclrtLaunchKernelCfg {
  aclrtLaunchKernelAttr* attrs;
  size_t numAttrs;
} aclrtLaunchKernelCfg;
typedef struct aclrtPlaceHolderInfo aclrtPlaceHolderInfo;

#define ACL_EVENT_SYNC 0x1U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x2U
#define ACL_EVENT_TIME_LINE 0x8U
#define ACL_EVENT_DEVICE_USE_ONLY 0x10U
#define ACL_EVENT_EXTERNAL 0x20U
#define ACL_EVENT_IPC 0x40U

// Operators and models (opaque to programs).
typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclopAttr aclopAttr;
typedef struct aclmdlDataset aclmdlDataset;
typedef enum aclopEngineType : int {
  ACL_ENGINE_SYS = 0,
  ACL_ENGINE_AICORE = 1,
  ACL_ENGINE_VECTOR = 2
} aclopEngineType;
typedef enum aclopCompileType : int {
  ACL_COMPILE_SYS = 0,
  ACL_COMPILE_UNREGISTERED = 1
} aclopCompileType;
typedef enum aclDataType : int {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3
} aclDataType;
typedef enum aclFormat : int {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2
} aclFormat;

}  // extern "C"
