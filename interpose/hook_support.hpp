// Helpers the hook bodies generated from every runtime's table use: out-parameter capture and the
// per-API extras (registration, launch geometry, graphs). Runtime-neutral: handles arrive as
// integers or void*, and each runtime's adapter (runtimes/<runtime>/<runtime>_adapter.hpp) adds
// what is its own (copy-kind numbering). All noexcept and allocation-free; those that emit
// strings run only at registration time.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "common/record.hpp"
#include "interpose/thread_buffer.hpp"
#include "runtimes/api_id.hpp"
#include "runtimes/vector_types.hpp"

namespace prof::interpose {

constexpr Activity to_activity(HookActivity a) {
  switch (a) {
    case HookActivity::kKernel:
    case HookActivity::kKernelSync: return Activity::kKernel;
    case HookActivity::kCopy:
    case HookActivity::kCopySync: return Activity::kCopy;
    case HookActivity::kMemset:
    case HookActivity::kMemsetSync: return Activity::kMemset;
    default: return Activity::kNone;
  }
}
// Calls that enqueue several ops (a graph's nodes, one launch per device, an ACL model's tasks:
// aclmdlExecute, aclmdlExecuteAsync, and aclmdlRIExecuteAsync, which replays a captured model
// runtime instance): their device span is their ops' reports' span where the runtime reports by
// external correlation, else what events around the call give (timing_begin's `one_op`).
constexpr bool enqueues_several_ops(ApiId id) {
  const std::string_view name = kApis[api_slot(id)].name;
  return name.find("GraphLaunch") != std::string_view::npos ||
         name.find("MultiDevice") != std::string_view::npos ||
         name.rfind("aclmdlExecute", 0) == 0 || name.rfind("aclmdlRIExecute", 0) == 0;
}
constexpr bool is_blocking(HookActivity a) {
  return a == HookActivity::kCopySync || a == HookActivity::kMemsetSync ||
         a == HookActivity::kKernelSync;
}

// An out-parameter's value after a successful call, as a record field; 0 when the call failed
// or the pointer is null (the hook never dereferences what the runtime did not fill). Every
// runtime prof knows reports success as 0.
template <typename T, typename Status>
inline uint64_t prof_out(T* ptr, Status ret) noexcept {
  if (static_cast<int64_t>(ret) != 0 || !ptr) return 0;
  if constexpr (sizeof(T) <= sizeof(uint64_t) && !std::is_void_v<T>) {
    uint64_t v = 0;
    __builtin_memcpy(&v, ptr, sizeof(T));
    return v;
  } else {
    return 0;
  }
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

void on_register_function(const HookContext& ctx, const void* host_function,
                          const char* device_name) noexcept;
void on_module_get_function(const HookContext& ctx, uint64_t function_handle,
                            const char* name) noexcept;
void on_module_load(const HookContext& ctx, const char* path) noexcept;
void on_launch(const HookContext& ctx, const void* function, dim3 grid, dim3 block,
               size_t shared_mem_bytes) noexcept;
// The call's named integer arguments (its runtime's arg_names), published before its ApiRecord.
void on_args(const HookContext& ctx, std::initializer_list<int64_t> values) noexcept;
// A host<->device copy's host-side pointer, as the call's one named argument (`host_ptr`, the
// device runtimes' arg_names): the source of an H2D copy, the destination of a D2H one. Any other
// direction records nothing: for a Default/unknown kind the runtime infers which side is the
// host's, and the hook will not ask it (a pointer query per copy). Written here rather than
// through on_args: one inline record, its unused values zero (the journal then encodes them as
// unchanged from the previous copy's).
[[gnu::always_inline]] inline void on_host_copy(const HookContext& ctx, CopyDirection direction,
                                                const void* dst, const void* src) noexcept {
  const void* host = direction == CopyDirection::kHostToDevice   ? src
                     : direction == CopyDirection::kDeviceToHost ? dst
                                                                 : nullptr;
  if (!host) return;
  Record* r = ctx.buffer->reserve();
  if (!r) return;
  ArgsRecord& a = r->args;
  a.type = static_cast<uint8_t>(RecordType::kArgs);
  a.count = 1;
  a.api_id = ctx.api_id;
  a.reserved0 = 0;
  a.correlation_id = ctx.correlation_id;
  a.values[0] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(host));
  for (int i = 1; i < 6; ++i) a.values[i] = 0;
  ctx.buffer->commit();
}
// Graph launches are kernels named kGraphLaunchName, keyed by their executable graph's handle.
inline constexpr const char* kGraphLaunchName = "[graph launch]";
void on_graph_instantiate(const HookContext& ctx, uint64_t exec) noexcept;
void on_graph_launch(const HookContext& ctx, const void* exec) noexcept;
// Work named by a string rather than a function (ACL's operators: the op type): keyed by the
// name's hash (kNamedWorkTag in the top byte, never a user-space address), its name sent once per
// thread and key (a small per-thread table; a full table sends it again, never loses it).
inline constexpr uint64_t kNamedWorkTag = 0xA5ull << 56;
void on_named_launch(const HookContext& ctx, const char* name) noexcept;
// Models loaded from a file and executed by id (ACL's aclmdl*): the load notes id -> file name
// (a fixed process-wide table), an execution is a kernel keyed kModelTag | id, named
// "model <file name>" (or "model <id>" for a model this process did not load from a file).
inline constexpr uint64_t kModelTag = 0xA6ull << 56;
void on_model_load(const HookContext& ctx, const char* path, uint32_t id) noexcept;
void on_model_launch(const HookContext& ctx, uint32_t id) noexcept;

}  // namespace prof::interpose
