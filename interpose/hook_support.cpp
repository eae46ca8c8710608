#include "interpose/hook_support.hpp"

#include "interpose/hook_shape.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "interpose/process_files.hpp"

namespace prof::interpose {

__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;
__attribute__((tls_model("initial-exec"))) thread_local int t_current_device[kRuntimeCount] = {};

void on_register_function(const HookContext& ctx, const void* host_function,
                          const char* device_name) noexcept {
  // Registration happens once per kernel at start-up: the name is copied into the buffer here
  // so that launches carry only the address; demangling happens in the collector.
  emit_string(*ctx.buffer, StringKind::kKernelSymbol, reinterpret_cast<uintptr_t>(host_function),
              device_name);
}

void on_module_get_function(const HookContext& ctx, uint64_t function_handle,
                            const char* name) noexcept {
  emit_string(*ctx.buffer, StringKind::kModuleFunction, function_handle, name);
}

void on_module_load(const HookContext& ctx, const char* path) noexcept {
  emit_string(*ctx.buffer, StringKind::kModulePath, 0, path);
  write_maps_snapshot();  // a module may bring code the ELF fallback should see
}

void on_launch(const HookContext& ctx, const void* function, dim3 grid, dim3 block,
               size_t shared_mem_bytes) noexcept {
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

void on_args(const HookContext& ctx, std::initializer_list<int64_t> values) noexcept {
  Record* r = ctx.buffer->reserve();
  if (!r) return;
  ArgsRecord& a = r->args;
  a.type = static_cast<uint8_t>(RecordType::kArgs);
  a.api_id = ctx.api_id;
  a.correlation_id = ctx.correlation_id;
  uint8_t n = 0;
  for (int64_t v : values) {
    if (n == 6) break;
    a.values[n++] = v;
  }
  a.count = n;
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

namespace prof::interpose {
namespace {

// Keys whose names this thread has sent: a small direct-mapped table (a collision sends the name
// again; the collector keeps one name per key, so a repeat costs a record, never a wrong name).
constexpr size_t kSentSlots = 64;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_sent[kSentSlots] = {};

bool first_time(uint64_t key) noexcept {
  uint64_t& slot = t_sent[(key ^ (key >> 29)) % kSentSlots];
  if (slot == key) return false;
  slot = key;
  return true;
}

// FNV-1a over at most 256 bytes of the name.
uint64_t name_hash(const char* name) noexcept {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < 256 && name[i]; ++i) {
    h ^= static_cast<unsigned char>(name[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// id -> file name of the models this process loaded (the last 64 bytes of the name).
constexpr size_t kModelSlots = 1024;
struct ModelName {
  std::atomic<uint32_t> id_plus_one{0};
  char name[64] = {};
};
// constinit: zeroed .bss, untouched until a model is loaded. Initialized at run time (name had no
// initializer), the table's 17 pages were written by every process at load.
constinit ModelName g_models[kModelSlots];

}  // namespace

void on_named_launch(const HookContext& ctx, const char* name) noexcept {
  if (!name) name = "";
  const uint64_t key = kNamedWorkTag | (name_hash(name) & 0x00FFFFFFFFFFFFFFull);
  if (first_time(key)) emit_string(*ctx.buffer, StringKind::kModuleFunction, key, name);
  on_launch(ctx, reinterpret_cast<const void*>(key), dim3{0, 0, 0}, dim3{0, 0, 0}, 0);
}

void on_model_load(const HookContext& ctx, const char* path, uint32_t id) noexcept {
  (void)ctx;
  if (!path) return;
  const char* base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  const size_t length = std::strlen(base);
  if (length >= sizeof(ModelName::name)) base += length - (sizeof(ModelName::name) - 1);
  ModelName& slot = g_models[id % kModelSlots];
  slot.id_plus_one.store(0, std::memory_order_release);
  std::strncpy(slot.name, base, sizeof slot.name - 1);
  slot.name[sizeof slot.name - 1] = '\0';
  slot.id_plus_one.store(id + 1, std::memory_order_release);
}

void on_model_launch(const HookContext& ctx, uint32_t id) noexcept {
  const uint64_t key = kModelTag | id;
  if (first_time(key)) {
    char text[96];
    const ModelName& slot = g_models[id % kModelSlots];
    if (slot.id_plus_one.load(std::memory_order_acquire) == id + 1)
      std::snprintf(text, sizeof text, "model %s", slot.name);
    else
      std::snprintf(text, sizeof text, "model %u", id);
    emit_string(*ctx.buffer, StringKind::kModuleFunction, key, text);
  }
  on_launch(ctx, reinterpret_cast<const void*>(key), dim3{0, 0, 0}, dim3{0, 0, 0}, 0);
}

}  // namespace prof::interpose
