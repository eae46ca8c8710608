/* Ascend ACL declarations written from ../shared/reference/vendor-api.md §4 (acl_rt.h ACL 1.17.0,
   acl_mdl.h/acl_op.h ACL 1.15), in C, independently of prof's runtimes/acl/acl_abi.hpp; plus the
   data-buffer, tensor-description, dataset and model-load helpers as CANN documents them (not
   quoted by the reference). The ABI test holds prof's table against this header; the C sample is
   written against it, as a user's program is written against acl/acl.h. */
#ifndef PROF_TEST_ACL_ABI_REFERENCE_H
#define PROF_TEST_ACL_ABI_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef int aclError;
static const int ACL_SUCCESS = 0;
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE 507004
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE 507006
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 507903

typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef void* aclrtFuncHandle;
typedef void* aclrtBinHandle;
typedef void* aclmdlRI;
typedef void* aclrtArgsHandle;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
  ACL_MEMCPY_DEFAULT,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
} aclrtMemcpyKind;
typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY
} aclrtMemMallocPolicy;
typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;
typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;
typedef enum aclrtLastErrLevel { ACL_RT_THREAD_LEVEL = 0 } aclrtLastErrLevel;
typedef enum {
  ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
  ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
  ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
} aclmdlRICaptureStatus;
typedef enum {
  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
  ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
  ACL_MODEL_RI_CAPTURE_MODE_RELAXED
} aclmdlRICaptureMode;
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

typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclopAttr aclopAttr;
typedef struct aclmdlDataset aclmdlDataset;
typedef enum { ACL_ENGINE_SYS, ACL_ENGINE_AICORE, ACL_ENGINE_VECTOR } aclopEngineType;
typedef enum { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3
} aclDataType;
typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2
} aclFormat;

aclError aclInit(const char* configPath);
aclError aclFinalize(void);
aclError aclrtGetDeviceCount(uint32_t* count);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t* deviceId);
aclError aclrtSynchronizeDevice(void);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtMallocHost(void** hostPtr, size_t size);
aclError aclrtFreeHost(void* hostPtr);
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtCreateStream(aclrtStream* stream);
aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
aclError aclrtCreateEvent(aclrtEvent* event);
aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag);
aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status);
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent);
aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp);
aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                        aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream);
aclError aclopCompileAndExecute(const char* opType, int numInputs,
                                const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[],
                                aclDataBuffer* const outputs[], const aclopAttr* attr,
                                aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream);
aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                  aclDataBuffer* inputs[], int numOutputs,
                                  aclTensorDesc* outputDesc[], aclDataBuffer* outputs[],
                                  aclopAttr* attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char* opPath,
                                  aclrtStream stream);
aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId);
aclError aclmdlUnload(uint32_t modelId);
aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output);
aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                            aclrtStream stream);
aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName,
                                aclrtFuncHandle* funcHandle);
aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                           size_t argsSize, aclrtStream stream);
aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                             size_t argsSize, aclrtLaunchKernelCfg* cfg, aclrtStream stream);
aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                     aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                     aclrtArgsHandle argsHandle, void* reserve);
aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                       aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                       void* hostArgs, size_t argsSize,
                                       aclrtPlaceHolderInfo* placeHolderArray,
                                       size_t placeHolderNum);
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
const char* aclGetRecentErrMsg(void);
aclError aclrtGetLastError(aclrtLastErrLevel level);
aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI);
aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status,
                                aclmdlRI* modelRI);
aclDataBuffer* aclCreateDataBuffer(void* data, size_t size);
aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer);
aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                   aclFormat format);
void aclDestroyTensorDesc(const aclTensorDesc* desc);
aclmdlDataset* aclmdlCreateDataset(void);
aclError aclmdlDestroyDataset(const aclmdlDataset* dataset);
aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer);

#if defined(__cplusplus)
}
#endif
#endif
