// The ACL face of the simulated device: libascendcl.so (Huawei Ascend NPUs). Each acl* export
// checks aclInit, translates handles, kinds and error codes onto the shared model (whose entry
// points speak HIP's vocabulary and stay local to this library) and keeps ACL's last-error state.
// Streams are the model's streams, events its events, NPUs its devices; operators and model
// executions are module kernels named by operator type and model file, timed by the model from
// the bytes they touch. Nothing here schedules, times or copies.
#include <sys/stat.h>
#include <sys/time.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "sim/last_error.hpp"
#include "sim/runtime.hpp"

#pragma GCC visibility push(default)
#include "runtimes/acl/acl_runtime_decls.hpp"
#pragma GCC visibility pop

// The helper objects programs hold only as pointers.
struct aclDataBuffer {
  uint32_t magic;
  void* data;
  size_t size;
};
struct aclTensorDesc {
  uint32_t magic;
  aclDataType type;
  std::vector<int64_t> dims;
  aclFormat format;
};
struct aclmdlDataset {
  uint32_t magic;
  std::vector<aclDataBuffer*> buffers;
};

namespace prof::sim {
namespace {

constexpr uint32_t kBufferMagic = 0xACDB0001, kDescMagic = 0xACDE0001, kDatasetMagic = 0xACD50001;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;         // assumed (CANN's numbering)
constexpr aclError ACL_ERROR_INTERNAL_ERROR = 500000;    // assumed
constexpr aclError ACL_ERROR_INVALID_MODEL_ID = 100024;  // assumed

std::atomic<bool> g_initialized{false};

// ACL's last error: a failure sets it (and the recent-error message); aclrtGetLastError returns
// and clears it, aclrtPeekAtLastError only returns it; aclGetRecentErrMsg returns the message of
// the most recent failure and clears it. Query answers ("not ready") are statuses, not errors.
thread_local LastError<aclError, ACL_SUCCESS, ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                       LastErrorRule::kFailuresOnly>
    t_last_error;
thread_local char t_message[256];

aclError fail(aclError code, const char* what) noexcept {
  std::snprintf(t_message, sizeof t_message, "EZ9999: Inner Error! %s (error code %d)", what, code);
  return t_last_error.note(code);
}
aclError ok() noexcept { return ACL_SUCCESS; }

aclError done(hipError_t e, const char* what) noexcept {
  switch (e) {
    case hipSuccess: return ok();
    case hipErrorInvalidValue:
    case hipErrorInvalidPitchValue:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidConfiguration:
    case hipErrorInvalidMemcpyDirection:
    case hipErrorInvalidDevice: return fail(ACL_ERROR_INVALID_PARAM, what);
    case hipErrorOutOfMemory: return fail(ACL_ERROR_BAD_ALLOC, what);
    case hipErrorInvalidHandle:
    case hipErrorInvalidDeviceFunction: return fail(ACL_ERROR_RT_PARAM_INVALID, what);
    case hipErrorStreamCaptureInvalidated:
      return fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, what);
    default: return fail(ACL_ERROR_INTERNAL_ERROR, what);
  }
}

// Every call checks aclInit first, and its work's submit time is the call's entry.
#define PROF_ACL_REQUIRE_INIT()                       \
  const CallEntry call_entry_;                        \
  if (!g_initialized.load(std::memory_order_acquire)) \
  return fail(ACL_ERROR_UNINITIALIZE, "aclInit has not been called")

hipStream_t stream_of(aclrtStream s) noexcept { return static_cast<hipStream_t>(s); }
hipEvent_t event_of(aclrtEvent e) noexcept { return static_cast<hipEvent_t>(e); }

bool kind_of(aclrtMemcpyKind k, hipMemcpyKind& kind) noexcept {
  switch (k) {
    case ACL_MEMCPY_HOST_TO_HOST: kind = hipMemcpyHostToHost; return true;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: kind = hipMemcpyHostToDevice; return true;
    case ACL_MEMCPY_DEVICE_TO_HOST: kind = hipMemcpyDeviceToHost; return true;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: kind = hipMemcpyDeviceToDevice; return true;
    case ACL_MEMCPY_DEFAULT: kind = hipMemcpyDefault; return true;
  }
  return false;
}

// Named work (operators, models, binaries' kernels) runs as module functions of the model, so the
// truth file carries their names. One module holds operators and models; each binary its own.
struct Names {
  std::mutex lock;
  hipModule_t ops = nullptr;
  std::map<const void*, hipModule_t> binaries;
  struct Model {
    std::string name;
    uint64_t bytes;
  };
  std::map<uint32_t, Model> models;
  uint32_t next_model = 1;
  std::unordered_map<aclrtEvent, unsigned> event_flags;
  // aclrtEventGetTimestamp's origin: an event recorded when the device was idle, and its host time.
  std::map<int, std::pair<hipEvent_t, uint64_t>> origins;
};
Names& names() {
  static auto* n = new Names;  // never destroyed (docs/sim.md)
  return *n;
}

hipFunction_t function_named(const std::string& name) {
  Names& n = names();
  std::lock_guard<std::mutex> guard(n.lock);
  if (n.ops == nullptr) {
    static const unsigned char image[16] = {};
    if (hipModuleLoadData(&n.ops, image) != hipSuccess) return nullptr;
  }
  hipFunction_t f = nullptr;
  return hipModuleGetFunction(&f, n.ops, name.c_str()) == hipSuccess ? f : nullptr;
}

// Named work takes the model's kernel time for its bytes: 256 threads per KiB touched. Blocking
// work (aclmdlExecute) returns when it has run.
aclError run_named(const std::string& name, uint64_t bytes, hipStream_t stream, const char* what,
                   bool blocking = false) {
  hipFunction_t f = function_named(name);
  if (f == nullptr) return fail(ACL_ERROR_INTERNAL_ERROR, what);
  const unsigned blocks = static_cast<unsigned>(bytes / 1024 > 0 ? bytes / 1024 : 1);
  if (blocking) return done(launch_blocking(f, dim3{blocks, 1, 1}, dim3{256, 1, 1}, stream), what);
  return done(hipModuleLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, stream, nullptr, nullptr), what);
}

bool valid_buffer(const aclDataBuffer* b) { return b != nullptr && b->magic == kBufferMagic; }

template <typename Buffers>
bool add_bytes(int count, Buffers buffers, uint64_t& bytes) {
  if (count < 0 || (count > 0 && buffers == nullptr)) return false;
  for (int i = 0; i < count; ++i) {
    if (!valid_buffer(buffers[i])) return false;
    bytes += buffers[i]->size;
  }
  return true;
}

bool dataset_bytes(const aclmdlDataset* d, uint64_t& bytes) {
  if (d == nullptr) return true;
  if (d->magic != kDatasetMagic) return false;
  for (const aclDataBuffer* b : d->buffers) bytes += b->size;
  return true;
}

constexpr int kMaxDevices = 64;

}  // namespace
}  // namespace prof::sim

using namespace prof::sim;

// ---- init / device --------------------------------------------------------------------------
aclError aclInit(const char* configPath) {
  if (configPath != nullptr && configPath[0] != '\0') {
    struct stat st;
    if (stat(configPath, &st) != 0)
      return fail(ACL_ERROR_INVALID_FILE, "the aclInit config file does not exist");
  }
  if (g_initialized.exchange(true))
    return fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was called twice");
  return ok();
}
aclError aclFinalize(void) {
  PROF_ACL_REQUIRE_INIT();
  g_initialized.store(false);
  return ok();
}
aclError aclrtGetDeviceCount(uint32_t* count) {
  PROF_ACL_REQUIRE_INIT();
  int n = 0;
  if (count == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "count is null");
  const hipError_t ret = hipGetDeviceCount(&n);
  if (ret == hipSuccess) *count = static_cast<uint32_t>(n);
  return done(ret, "aclrtGetDeviceCount");
}
aclError aclrtSetDevice(int32_t deviceId) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipSetDevice(deviceId), "aclrtSetDevice: invalid device id");
}
aclError aclrtGetDevice(int32_t* deviceId) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipGetDevice(deviceId), "aclrtGetDevice");
}
aclError aclrtSynchronizeDevice(void) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipDeviceSynchronize(), "aclrtSynchronizeDevice");
}
aclError aclrtResetDevice(int32_t deviceId) {
  PROF_ACL_REQUIRE_INIT();
  int current = 0;
  hipGetDevice(&current);
  if (hipSetDevice(deviceId) != hipSuccess)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtResetDevice: invalid device id");
  const hipError_t ret = hipDeviceReset();
  hipSetDevice(current);
  return done(ret, "aclrtResetDevice");
}

// ---- memory ---------------------------------------------------------------------------------
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  PROF_ACL_REQUIRE_INIT();
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > 0xFF)
    return fail(ACL_ERROR_INVALID_PARAM, "bad malloc policy");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc of 0 bytes");
  return done(hipMalloc(devPtr, size), "aclrtMalloc");
}
aclError aclrtFree(void* devPtr) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipFree(devPtr), "aclrtFree: not a device allocation");
}
aclError aclrtMallocHost(void** hostPtr, size_t size) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipHostMalloc(hostPtr, size, 0), "aclrtMallocHost");
}
aclError aclrtFreeHost(void* hostPtr) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipHostFree(hostPtr), "aclrtFreeHost: not a host allocation");
}
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  PROF_ACL_REQUIRE_INIT();
  if (count > maxCount) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count exceeds maxCount");
  return done(hipMemset(devPtr, value, count), "aclrtMemset");
}
aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  if (count > maxCount)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync: count exceeds maxCount");
  return done(hipMemsetAsync(devPtr, value, count, stream_of(stream)), "aclrtMemsetAsync");
}
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  PROF_ACL_REQUIRE_INIT();
  hipMemcpyKind k;
  if (!kind_of(kind, k)) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: invalid copy kind");
  if (count > destMax) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count exceeds destMax");
  return done(hipMemcpy(dst, src, count, k), "aclrtMemcpy");
}
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  hipMemcpyKind k;
  if (!kind_of(kind, k))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync: invalid copy kind");
  if (count > destMax)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync: count exceeds destMax");
  return done(hipMemcpyAsync(dst, src, count, k, stream_of(stream)), "aclrtMemcpyAsync");
}

// ---- streams --------------------------------------------------------------------------------
// ACL has no legacy default stream: a created stream does not synchronize with the default
// stream (the model's non-blocking streams).
aclError aclrtCreateStream(aclrtStream* stream) {
  PROF_ACL_REQUIRE_INIT();
  return done(
      hipStreamCreateWithFlags(reinterpret_cast<hipStream_t*>(stream), hipStreamNonBlocking),
      "aclrtCreateStream");
}
aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  PROF_ACL_REQUIRE_INIT();
  (void)flag;
  return done(hipStreamCreateWithPriority(reinterpret_cast<hipStream_t*>(stream),
                                          hipStreamNonBlocking, -static_cast<int>(priority)),
              "aclrtCreateStreamWithConfig");
}
aclError aclrtDestroyStream(aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  if (stream == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: the default stream");
  return done(hipStreamDestroy(stream_of(stream)), "aclrtDestroyStream: invalid stream");
}
aclError aclrtSynchronizeStream(aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipStreamSynchronize(stream_of(stream)), "aclrtSynchronizeStream: invalid stream");
}
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  PROF_ACL_REQUIRE_INIT();
  if (status == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is null");
  const hipError_t ret = hipStreamQuery(stream_of(stream));
  if (ret == hipErrorNotReady) {
    *status = ACL_STREAM_STATUS_NOT_READY;
    return ok();
  }
  if (ret == hipSuccess) *status = ACL_STREAM_STATUS_COMPLETE;
  return done(ret, "aclrtStreamQuery: invalid stream");
}
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipStreamWaitEvent(stream_of(stream), event_of(event), 0), "aclrtStreamWaitEvent");
}

// ---- events ---------------------------------------------------------------------------------
namespace prof::sim {
namespace {
aclError create_event(aclrtEvent* event, uint32_t flag) {
  PROF_ACL_REQUIRE_INIT();
  constexpr uint32_t kKnown = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                              ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL |
                              ACL_EVENT_IPC;
  if (event == nullptr || (flag & ~kKnown) != 0)
    return fail(ACL_ERROR_INVALID_PARAM, "bad event flag");
  const hipError_t ret = hipEventCreate(reinterpret_cast<hipEvent_t*>(event));
  if (ret == hipSuccess) {
    std::lock_guard<std::mutex> guard(names().lock);
    names().event_flags[*event] = flag;
  }
  return done(ret, "aclrtCreateEvent");
}
bool ipc_event(aclrtEvent e) {
  std::lock_guard<std::mutex> guard(names().lock);
  auto it = names().event_flags.find(e);
  return it != names().event_flags.end() && (it->second & ACL_EVENT_IPC) != 0;
}
}  // namespace
}  // namespace prof::sim

aclError aclrtCreateEvent(aclrtEvent* event) { return create_event(event, ACL_EVENT_SYNC); }
aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return create_event(event, flag);
}
aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return create_event(event, flag);
}
aclError aclrtDestroyEvent(aclrtEvent event) {
  PROF_ACL_REQUIRE_INIT();
  const hipError_t ret = hipEventDestroy(event_of(event));
  if (ret == hipSuccess) {
    std::lock_guard<std::mutex> guard(names().lock);
    names().event_flags.erase(event);
  }
  return done(ret, "aclrtDestroyEvent: invalid event");
}
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipEventRecord(event_of(event), stream_of(stream)), "aclrtRecordEvent");
}
aclError aclrtSynchronizeEvent(aclrtEvent event) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipEventSynchronize(event_of(event)), "aclrtSynchronizeEvent");
}
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  PROF_ACL_REQUIRE_INIT();
  if (status == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is null");
  const hipError_t ret = hipEventQuery(event_of(event));
  if (ret == hipErrorNotReady) {
    *status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ok();
  }
  if (ret == hipSuccess) *status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  return done(ret, "aclrtQueryEventStatus: invalid event");
}
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  PROF_ACL_REQUIRE_INIT();
  if (ipc_event(startEvent) || ipc_event(endEvent))
    return fail(ACL_ERROR_INVALID_PARAM, "an IPC event is not timed");
  const hipError_t ret = hipEventElapsedTime(ms, event_of(startEvent), event_of(endEvent));
  if (ret == hipErrorNotReady)
    return fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "the event has not completed");
  return done(ret, "aclrtEventElapsedTime");
}
// Microseconds of the device's clock, here the host's wall clock the model runs on: the time an
// idle-device origin event was recorded plus the elapsed time from it.
aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  PROF_ACL_REQUIRE_INIT();
  if (timestamp == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "timestamp is null");
  int device = 0;
  hipGetDevice(&device);
  hipEvent_t origin = nullptr;
  uint64_t origin_us = 0;
  {
    Names& n = names();
    std::lock_guard<std::mutex> guard(n.lock);
    auto it = n.origins.find(device);
    if (it == n.origins.end()) {
      hipEvent_t e = nullptr;
      hipEventCreate(&e);
      timeval now;
      gettimeofday(&now, nullptr);
      hipEventRecord(e, hipStreamPerThread);
      hipEventSynchronize(e);
      it =
          n.origins.emplace(device, std::make_pair(e, uint64_t(now.tv_sec) * 1000000 + now.tv_usec))
              .first;
    }
    origin = it->second.first;
    origin_us = it->second.second;
  }
  float ms = 0;
  const hipError_t ret = hipEventElapsedTime(&ms, origin, event_of(event));
  if (ret == hipErrorNotReady)
    return fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "the event has not completed");
  if (ret != hipSuccess) return done(ret, "aclrtEventGetTimestamp");
  *timestamp = origin_us + static_cast<uint64_t>(static_cast<double>(ms) * 1000.0);
  return ok();
}

// ---- operators, models, kernels -------------------------------------------------------------
aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                        aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  (void)inputDesc, (void)outputDesc, (void)attr;
  uint64_t bytes = 0;
  if (opType == nullptr || opType[0] == '\0')
    return fail(ACL_ERROR_INVALID_PARAM, "aclopExecuteV2: no op type");
  if (!add_bytes(numInputs, inputs, bytes) || !add_bytes(numOutputs, outputs, bytes))
    return fail(ACL_ERROR_INVALID_PARAM, "aclopExecuteV2: bad input or output buffers");
  return run_named(opType, bytes, stream_of(stream), "aclopExecuteV2");
}
aclError aclopCompileAndExecute(const char* opType, int numInputs,
                                const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[],
                                aclDataBuffer* const outputs[], const aclopAttr* attr,
                                aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  (void)inputDesc, (void)outputDesc, (void)attr, (void)engineType, (void)compileFlag, (void)opPath;
  uint64_t bytes = 0;
  if (opType == nullptr || opType[0] == '\0')
    return fail(ACL_ERROR_INVALID_PARAM, "aclopCompileAndExecute: no op type");
  if (!add_bytes(numInputs, inputs, bytes) || !add_bytes(numOutputs, outputs, bytes))
    return fail(ACL_ERROR_INVALID_PARAM, "aclopCompileAndExecute: bad input or output buffers");
  return run_named(opType, bytes, stream_of(stream), "aclopCompileAndExecute");
}
aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                  aclDataBuffer* inputs[], int numOutputs,
                                  aclTensorDesc* outputDesc[], aclDataBuffer* outputs[],
                                  aclopAttr* attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char* opPath,
                                  aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  (void)inputDesc, (void)outputDesc, (void)attr, (void)engineType, (void)compileFlag, (void)opPath;
  uint64_t bytes = 0;
  if (opType == nullptr || opType[0] == '\0')
    return fail(ACL_ERROR_INVALID_PARAM, "aclopCompileAndExecuteV2: no op type");
  if (!add_bytes(numInputs, inputs, bytes) || !add_bytes(numOutputs, outputs, bytes))
    return fail(ACL_ERROR_INVALID_PARAM, "aclopCompileAndExecuteV2: bad input or output buffers");
  return run_named(opType, bytes, stream_of(stream), "aclopCompileAndExecuteV2");
}

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  PROF_ACL_REQUIRE_INIT();
  struct stat st;
  if (modelPath == nullptr || modelId == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclmdlLoadFromFile: null");
  if (stat(modelPath, &st) != 0 || !S_ISREG(st.st_mode))
    return fail(ACL_ERROR_INVALID_FILE, "aclmdlLoadFromFile: no such model file");
  const char* base = std::strrchr(modelPath, '/');
  Names& n = names();
  std::lock_guard<std::mutex> guard(n.lock);
  *modelId = n.next_model++;
  n.models[*modelId] = {std::string("model ") + (base ? base + 1 : modelPath),
                        static_cast<uint64_t>(st.st_size)};
  return ok();
}
aclError aclmdlUnload(uint32_t modelId) {
  PROF_ACL_REQUIRE_INIT();
  Names& n = names();
  std::lock_guard<std::mutex> guard(n.lock);
  if (n.models.erase(modelId) == 0)
    return fail(ACL_ERROR_INVALID_MODEL_ID, "aclmdlUnload: unknown model id");
  return ok();
}
namespace prof::sim {
namespace {
// A model runs as one kernel over the bytes of its file and of its input and output datasets.
aclError execute_model(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                       hipStream_t stream, const char* what, bool blocking) {
  Names::Model model;
  {
    Names& n = names();
    std::lock_guard<std::mutex> guard(n.lock);
    auto it = n.models.find(modelId);
    if (it == n.models.end()) return fail(ACL_ERROR_INVALID_MODEL_ID, "unknown model id");
    model = it->second;
  }
  uint64_t bytes = model.bytes;
  if (!dataset_bytes(input, bytes) || !dataset_bytes(output, bytes))
    return fail(ACL_ERROR_INVALID_PARAM, "bad dataset");
  return run_named(model.name, bytes, stream, what, blocking);
}
}  // namespace
}  // namespace prof::sim
aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  PROF_ACL_REQUIRE_INIT();
  return execute_model(modelId, input, output, nullptr, "aclmdlExecute", /*blocking=*/true);
}
aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                            aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  return execute_model(modelId, input, output, stream_of(stream), "aclmdlExecuteAsync", false);
}
// Any non-null binary handle is a binary here (loading one is not in the reference); its kernels
// are module functions found by name.
aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName,
                                aclrtFuncHandle* funcHandle) {
  PROF_ACL_REQUIRE_INIT();
  if (binHandle == nullptr || kernelName == nullptr || funcHandle == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtBinaryGetFunction: null argument");
  Names& n = names();
  hipModule_t module = nullptr;
  {
    std::lock_guard<std::mutex> guard(n.lock);
    hipModule_t& m = n.binaries[binHandle];
    if (m == nullptr) {
      static const unsigned char image[16] = {};
      if (hipModuleLoadData(&m, image) != hipSuccess)
        return fail(ACL_ERROR_INTERNAL_ERROR, "module");
    }
    module = m;
  }
  return done(
      hipModuleGetFunction(reinterpret_cast<hipFunction_t*>(funcHandle), module, kernelName),
      "aclrtBinaryGetFunction");
}
namespace prof::sim {
namespace {
aclError launch_kernel(aclrtFuncHandle f, uint32_t numBlocks, aclrtStream stream,
                       const char* what) {
  if (numBlocks == 0) return fail(ACL_ERROR_INVALID_PARAM, "numBlocks is 0");
  return done(hipModuleLaunchKernel(static_cast<hipFunction_t>(f), numBlocks, 1, 1, 1, 1, 1, 0,
                                    stream_of(stream), nullptr, nullptr),
              what);
}
}  // namespace
}  // namespace prof::sim
aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                           size_t argsSize, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  (void)argsData, (void)argsSize;
  return launch_kernel(funcHandle, numBlocks, stream, "aclrtLaunchKernel");
}
aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                             size_t argsSize, aclrtLaunchKernelCfg* cfg, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  (void)argsData, (void)argsSize, (void)cfg;
  return launch_kernel(funcHandle, numBlocks, stream, "aclrtLaunchKernelV2");
}
aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                     aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                     aclrtArgsHandle argsHandle, void* reserve) {
  PROF_ACL_REQUIRE_INIT();
  (void)cfg, (void)argsHandle, (void)reserve;
  return launch_kernel(funcHandle, numBlocks, stream, "aclrtLaunchKernelWithConfig");
}
aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                       aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                       void* hostArgs, size_t argsSize,
                                       aclrtPlaceHolderInfo* placeHolderArray,
                                       size_t placeHolderNum) {
  PROF_ACL_REQUIRE_INIT();
  (void)cfg, (void)hostArgs, (void)argsSize, (void)placeHolderArray, (void)placeHolderNum;
  return launch_kernel(funcHandle, numBlocks, stream, "aclrtLaunchKernelWithHostArgs");
}
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipGraphLaunch(static_cast<hipGraphExec_t>(modelRI), stream_of(stream)),
              "aclmdlRIExecuteAsync");
}

// ---- errors and capture ---------------------------------------------------------------------
const char* aclGetRecentErrMsg(void) {
  if (t_message[0] == '\0') return nullptr;
  static thread_local char copy[sizeof t_message];
  std::memcpy(copy, t_message, sizeof copy);
  t_message[0] = '\0';
  return copy;
}
aclError aclrtGetLastError(aclrtLastErrLevel level) {
  return level == ACL_RT_THREAD_LEVEL ? t_last_error.take() : ACL_ERROR_INVALID_PARAM;
}
aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  return level == ACL_RT_THREAD_LEVEL ? t_last_error.peek() : ACL_ERROR_INVALID_PARAM;
}
aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  PROF_ACL_REQUIRE_INIT();
  return done(hipStreamBeginCapture(stream_of(stream),
                                    static_cast<hipStreamCaptureMode>(static_cast<int>(mode))),
              "aclmdlRICaptureBegin");
}
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  PROF_ACL_REQUIRE_INIT();
  if (modelRI == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "modelRI is null");
  hipGraph_t graph = nullptr;
  if (const hipError_t ret = hipStreamEndCapture(stream_of(stream), &graph); ret != hipSuccess)
    return done(ret, "aclmdlRICaptureEnd");
  return done(
      hipGraphInstantiate(reinterpret_cast<hipGraphExec_t*>(modelRI), graph, nullptr, nullptr, 0),
      "aclmdlRICaptureEnd");
}
aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status,
                                aclmdlRI* modelRI) {
  PROF_ACL_REQUIRE_INIT();
  if (status == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "status is null");
  hipStreamCaptureStatus s = hipStreamCaptureStatusNone;
  const hipError_t ret = hipStreamIsCapturing(stream_of(stream), &s);
  if (ret == hipSuccess) {
    *status = static_cast<aclmdlRICaptureStatus>(static_cast<int>(s));
    if (modelRI != nullptr) *modelRI = nullptr;
  }
  return done(ret, "aclmdlRICaptureGetInfo");
}

// ---- operator and model inputs --------------------------------------------------------------
aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  return new aclDataBuffer{kBufferMagic, data, size};
}
aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  if (!valid_buffer(dataBuffer)) return fail(ACL_ERROR_INVALID_PARAM, "not a data buffer");
  const_cast<aclDataBuffer*>(dataBuffer)->magic = 0;
  delete dataBuffer;
  return ok();
}
aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                   aclFormat format) {
  if (numDims < 0 || (numDims > 0 && dims == nullptr)) return nullptr;
  return new aclTensorDesc{kDescMagic, dataType, std::vector<int64_t>(dims, dims + numDims),
                           format};
}
void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  if (desc != nullptr && desc->magic == kDescMagic) delete desc;
}
aclmdlDataset* aclmdlCreateDataset(void) { return new aclmdlDataset{kDatasetMagic, {}}; }
aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  if (dataset == nullptr || dataset->magic != kDatasetMagic)
    return fail(ACL_ERROR_INVALID_PARAM, "not a dataset");
  delete dataset;
  return ok();
}
aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  if (dataset == nullptr || dataset->magic != kDatasetMagic || !valid_buffer(dataBuffer))
    return fail(ACL_ERROR_INVALID_PARAM, "aclmdlAddDatasetBuffer: bad dataset or buffer");
  dataset->buffers.push_back(dataBuffer);
  return ok();
}

// ---- the table holds the face to its prototypes ---------------------------------------------
namespace prof::sim {
namespace {
using AnyFunction = void (*)();
#define PROF_ACL_API(name, ret, params, ...)                      \
  static_assert(std::is_same_v<decltype(&::name), ret(*) params>, \
                #name " differs from acl_api.def");
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
[[gnu::used]] const AnyFunction kEveryExport[] = {
#define PROF_ACL_API(name, ...) reinterpret_cast<AnyFunction>(&::name),
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
};
}  // namespace
}  // namespace prof::sim
