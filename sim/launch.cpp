// Kernel launches: validated like HIP, then modelled as an op that occupies its stream for
// kernel_duration_ns(threads). Device code is never executed. Function addresses need not have
// been registered with __hipRegisterFunction: plain C++ programs pass host function pointers.
#include <vector>

#include "common/clock.hpp"

#include "sim/runtime.hpp"

namespace prof::sim {

bool is_module_function(hipFunction_t f) noexcept;  // module.cpp

namespace {

constexpr uint64_t kMaxThreadsPerBlock = 1024;

struct CallConfiguration {
  dim3 grid;
  dim3 block;
  size_t shared_mem_bytes;
  hipStream_t stream;
};

std::vector<CallConfiguration>& call_configurations() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

}  // namespace

hipError_t launch(uint64_t function, dim3 grid, dim3 block, uint64_t shared_mem_bytes,
                  hipStream_t handle, hipEvent_t start_event, hipEvent_t stop_event) noexcept {
  if (function == 0) return hipErrorInvalidDeviceFunction;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return hipErrorInvalidConfiguration;
  }
  const uint64_t block_threads = uint64_t{block.x} * block.y * block.z;
  if (block_threads > kMaxThreadsPerBlock) return hipErrorInvalidConfiguration;
  Stream* stream = resolve_stream(handle);
  if (stream == nullptr) return handle == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle;
  Event* start = nullptr;
  Event* stop = nullptr;
  if (start_event != nullptr && (start = resolve_event(start_event)) == nullptr)
    return hipErrorInvalidHandle;
  if (stop_event != nullptr && (stop = resolve_event(stop_event)) == nullptr)
    return hipErrorInvalidHandle;

  Op op;
  op.kind = OpKind::kKernel;
  op.grid = grid;
  op.block = block;
  op.shared_mem_bytes = shared_mem_bytes;
  op.function = function;
  op.name = function_name(function);
  const unsigned __int128 threads =
      static_cast<unsigned __int128>(uint64_t{grid.x} * grid.y) * grid.z * block_threads;
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (stream->capture != nullptr) {
    hipError_t ret = start != nullptr ? capture_event_record_locked(start, stream) : hipSuccess;
    if (ret == hipSuccess)
      ret = capture_op_locked(stream, std::move(op), kernel_duration_ns(threads));
    if (ret == hipSuccess && stop != nullptr) ret = capture_event_record_locked(stop, stream);
    return ret;
  }
  if (const hipError_t ret = check_legacy_capture_locked(stream); ret != hipSuccess) return ret;
  // One critical section and one submit time, so the start marker lands exactly at the kernel's
  // begin and the stop marker exactly at its end.
  const uint64_t submit_ns = take_call_entry();
  if (start != nullptr) record_event_locked(start, stream, submit_ns);
  submit_locked(stream, std::move(op), kernel_duration_ns(threads), submit_ns);
  if (stop != nullptr) record_event_locked(stop, stream, submit_ns);
  return hipSuccess;
}

namespace {

uint64_t address(const void* p) noexcept { return reinterpret_cast<uint64_t>(p); }

}  // namespace

// A kernel whose call returns when it has run (ACL's aclmdlExecute): run on the calling thread like
// a blocking copy (run_inline), so the call returns at the kernel's end and a late return moves the
// truth's end with it, as for blocking copies.
hipError_t launch_blocking(const void* function, dim3 grid, dim3 block,
                           hipStream_t handle) noexcept {
  if (function == nullptr) return hipErrorInvalidDeviceFunction;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      uint64_t{block.x} * block.y * block.z > kMaxThreadsPerBlock) {
    return hipErrorInvalidConfiguration;
  }
  Stream* stream = resolve_stream(handle);
  if (stream == nullptr) return handle == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle;
  Op op;
  op.kind = OpKind::kKernel;
  op.grid = grid;
  op.block = block;
  op.function = address(function);
  op.name = function_name(op.function);
  const unsigned __int128 threads = static_cast<unsigned __int128>(uint64_t{grid.x} * grid.y) *
                                    grid.z * (uint64_t{block.x} * block.y * block.z);
  Op here;
  {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    if (const hipError_t ret = check_not_capturing_locked(stream); ret != hipSuccess) return ret;
    if (const hipError_t ret = check_legacy_capture_locked(stream); ret != hipSuccess) return ret;
    submit_locked(stream, std::move(op), kernel_duration_ns(threads), take_call_entry(), &here);
  }
  run_inline(stream, here);
  return hipSuccess;
}

}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks,
                           void** args, size_t sharedMemBytes, hipStream_t stream) {
  (void)args;
  return finish(launch(address(function_address), numBlocks, dimBlocks, sharedMemBytes, stream,
                       nullptr, nullptr));
}

hipError_t hipExtLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks,
                              void** args, size_t sharedMemBytes, hipStream_t stream,
                              hipEvent_t startEvent, hipEvent_t stopEvent, int flags) {
  (void)args;
  (void)flags;
  return finish(launch(address(function_address), numBlocks, dimBlocks, sharedMemBytes, stream,
                       startEvent, stopEvent));
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void** kernelParams, void** extra) {
  (void)kernelParams;
  (void)extra;
  const CallEntry entry;  // the submit time is the call's entry, before the function lookup
  if (f == nullptr) return finish(hipErrorInvalidDeviceFunction);
  // Unlike host addresses, module functions only come from hipModuleGetFunction.
  if (!is_module_function(f)) return finish(hipErrorInvalidHandle);
  return finish(launch(address(f), dim3{gridDimX, gridDimY, gridDimZ},
                       dim3{blockDimX, blockDimY, blockDimZ}, sharedMemBytes, stream, nullptr,
                       nullptr));
}

hipError_t hipLaunchCooperativeKernel(const void* f, dim3 gridDim, dim3 blockDimX,
                                      void** kernelParams, unsigned int sharedMemBytes,
                                      hipStream_t stream) {
  (void)kernelParams;
  return finish(launch(address(f), gridDim, blockDimX, sharedMemBytes, stream, nullptr, nullptr));
}

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream) {
  call_configurations().push_back({gridDim, blockDim, sharedMem, stream});
  return finish(hipSuccess);
}

// hipamd 5.2 pops without checking (undefined on an empty stack); here an unmatched pop leaves
// the outputs alone and returns hipErrorMissingConfiguration, as CUDA's runtime does.
hipError_t __hipPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                     hipStream_t* stream) {
  auto& stack = call_configurations();
  if (stack.empty()) return finish(hipErrorMissingConfiguration);
  const CallConfiguration c = stack.back();
  stack.pop_back();
  if (gridDim != nullptr) *gridDim = c.grid;
  if (blockDim != nullptr) *blockDim = c.block;
  if (sharedMem != nullptr) *sharedMem = c.shared_mem_bytes;
  if (stream != nullptr) *stream = c.stream;
  return finish(hipSuccess);
}
