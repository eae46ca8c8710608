#include "interpose/hook_support.hpp"

#include "interpose/hook_shape.hpp"

#include <cstring>

#include "interpose/process_files.hpp"

namespace prof::interpose {

__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;
__attribute__((tls_model("initial-exec"))) thread_local int t_current_device[kRuntimeCount] = {};


void on_register_function(const HookContext& ctx, const void* host_function, const char* device_name) noexcept {
  // Registration happens once per kernel at start-up: the name is copied into the buffer here
  // so that launches carry only the address; demangling happens in the collector.
  emit_string(*ctx.buffer, StringKind::kKernelSymbol, reinterpret_cast<uintptr_t>(host_function), device_name);
}

void on_module_get_function(const HookContext& ctx, uint64_t function_handle, const char* name) noexcept {
  emit_string(*ctx.buffer, StringKind::kModuleFunction, function_handle, name);
}

void on_module_load(const HookContext& ctx, const char* path) noexcept {
  emit_string(*ctx.buffer, StringKind::kModulePath, 0, path);
  write_maps_snapshot();  // a module may bring code the ELF fallback should see
}

void on_launch(const HookContext& ctx, const void* function, dim3 grid, dim3 block, size_t shared_mem_bytes) noexcept {
  // Published just before the call's ApiRecord, which carries the same correlation id.
  Record* r = ctx.buffer->reserve();
  if (!r) return;
  LaunchRecord& l = r->launch;
  l.type = static_cast<uint8_t>(RecordType::kLaunch);
  l.api_id = ctx.api_id;
  l.shared_mem_bytes = static_cast<uint32_t>(shared_mem_bytes);
  l.correlation_id = ctx.correlation_id;
  l.function = reinterpret_cast<uintptr_t>(function);
  l.grid[0] = grid.x;
  l.grid[1] = grid.y;
  l.grid[2] = grid.z;
  l.block[0] = block.x;
  l.block[1] = block.y;
  l.block[2] = block.z;
  ctx.buffer->commit();
}

void on_graph_instantiate(const HookContext& ctx, uint64_t exec) noexcept {
  // Once per instantiation (an exec handle may be reused after its graph exec is destroyed).
  emit_string(*ctx.buffer, StringKind::kModuleFunction, exec, kGraphLaunchName);
}

void on_graph_launch(const HookContext& ctx, const void* exec) noexcept {
  // No geometry: a graph is many kernels and copies; its device span is the launch's.
  on_launch(ctx, exec, dim3{0, 0, 0}, dim3{0, 0, 0}, 0);
}

}  // namespace prof::interpose
