// Helpers the hook bodies generated from hip_api.def use: out-parameter capture, copy
// directions, and the per-API extras (registration, launch geometry). All noexcept and
// allocation-free; those that emit strings run only at registration time.
#pragma once
#include <cstdint>
#include <type_traits>

#include "common/record.hpp"
#include "runtimes/api_id.hpp"
#include "runtimes/hip/hip_abi.hpp"
#include "interpose/thread_buffer.hpp"

namespace prof::interpose {

constexpr Activity to_activity(HookActivity a) {
  switch (a) {
    case HookActivity::kKernel: return Activity::kKernel;
    case HookActivity::kCopy:
    case HookActivity::kCopySync: return Activity::kCopy;
    case HookActivity::kMemset:
    case HookActivity::kMemsetSync: return Activity::kMemset;
    default: return Activity::kNone;
  }
}
constexpr bool is_blocking(HookActivity a) { return a == HookActivity::kCopySync || a == HookActivity::kMemsetSync; }

// An out-parameter's value after a successful call, as a record field; 0 when the call failed
// or the pointer is null (the hook never dereferences what the runtime did not fill).
template <typename T>
inline uint64_t prof_out(T* ptr, hipError_t ret) noexcept {
  if (ret != hipSuccess || !ptr) return 0;
  if constexpr (sizeof(T) <= sizeof(uint64_t)) {
    uint64_t v = 0;
    __builtin_memcpy(&v, ptr, sizeof(T));
    return v;
  } else {
    return 0;
  }
}

constexpr CopyDirection prof_direction(hipMemcpyKind kind) {
  switch (kind) {
    case hipMemcpyHostToHost: return CopyDirection::kHostToHost;
    case hipMemcpyHostToDevice: return CopyDirection::kHostToDevice;
    case hipMemcpyDeviceToHost: return CopyDirection::kDeviceToHost;
    case hipMemcpyDeviceToDevice: return CopyDirection::kDeviceToDevice;
    case hipMemcpyDefault: return CopyDirection::kDefault;
  }
  return CopyDirection::kUnknown;
}

template <typename T>
constexpr uint64_t to_u64(T v) {
  if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<uintptr_t>(v);
  } else {
    return static_cast<uint64_t>(v);
  }
}

struct HookContext {
  ThreadBuffer* buffer;
  uint64_t correlation_id;
  uint16_t api_id;
};

void on_set_device(int device, hipError_t ret) noexcept;
void on_register_function(const HookContext& ctx, const void* host_function, const char* device_name) noexcept;
void on_module_get_function(const HookContext& ctx, hipFunction_t* function, const char* name, hipError_t ret) noexcept;
void on_module_load(const HookContext& ctx, const char* path, hipError_t ret) noexcept;
void on_launch(const HookContext& ctx, const void* function, dim3 grid, dim3 block, size_t shared_mem_bytes) noexcept;
// Graph launches are kernels named kGraphLaunchName, keyed by their hipGraphExec_t.
inline constexpr const char* kGraphLaunchName = "[graph launch]";
void on_graph_instantiate(const HookContext& ctx, hipGraphExec_t* exec, hipError_t ret) noexcept;
void on_graph_launch(const HookContext& ctx, hipGraphExec_t exec) noexcept;
void before_device_reset() noexcept;

}  // namespace prof::interpose
