#include "interpose/real_functions.hpp"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <cstdint>

#include <cstring>

#include "interpose/dl_hooks.hpp"

namespace prof::interpose {

std::atomic<void*> g_real[kApiCount];

namespace {

struct Search {
  const char* name;
  const void* self_base;  // prof's preload library: its hooks are never the real function
  void* found;
};

bool is_self(const void* address, const void* self_base) {
  Dl_info info;
  return dladdr(address, &info) != 0 && info.dli_fbase == self_base;
}

// A runtime loaded with RTLD_LOCAL (Python's ctypes.CDLL, extension modules, a plugin's dlopen)
// is in no global scope, so RTLD_NEXT misses it; the library that loaded it still reaches it
// through its own local scope. Each loaded object is asked through a handle of its own:
// dlsym(handle) searches that object and its dependencies, which is that local scope.
int search_object(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0')
    return 0;  // the program: in the global scope
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  void* p =
      real_dlsym(handle, search->name);  // not the hooked dlsym: that would answer with prof's hook
  dlclose(handle);
  if (p == nullptr || is_self(p, search->self_base)) return 0;
  search->found = p;
  return 1;
}

const void* self_base() {
  Dl_info info;
  return dladdr(reinterpret_cast<const void*>(&resolve_real), &info) != 0 ? info.dli_fbase
                                                                          : nullptr;
}

}  // namespace

void* find_real_symbol(const char* name) noexcept {
  // RTLD_NEXT: the first definition after this library in the global lookup order. When no
  // library in the global scope defines it, the loaded objects' local scopes are searched.
  void* p = real_dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    Search search{name, self_base(), nullptr};
    dl_iterate_phdr(search_object, &search);
    p = search.found;
  }
  return p;
}

namespace {
// The loaded ranges (lowest to highest PT_LOAD address) of the libraries real functions live in.
constexpr int kRuntimeObjects = 16;
std::atomic<uintptr_t> g_object_lo[kRuntimeObjects];
std::atomic<uintptr_t> g_object_hi[kRuntimeObjects];
std::atomic<int> g_objects{0};
pthread_mutex_t g_objects_mutex = PTHREAD_MUTEX_INITIALIZER;

struct Extent {
  uintptr_t address, lo, hi;
};

int find_extent(dl_phdr_info* info, size_t, void* data) {
  auto* extent = static_cast<Extent*>(data);
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    lo = std::min<uintptr_t>(lo, info->dlpi_addr + ph.p_vaddr);
    hi = std::max<uintptr_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (extent->address < lo || extent->address >= hi) return 0;
  extent->lo = lo;
  extent->hi = hi;
  return 1;
}

void note_runtime_object(const void* function) noexcept {
  const auto address = reinterpret_cast<uintptr_t>(function);
  if (in_runtime_library(function)) return;
  Extent extent{address, 0, 0};
  if (dl_iterate_phdr(find_extent, &extent) == 0) return;
  pthread_mutex_lock(&g_objects_mutex);
  const int n = g_objects.load(std::memory_order_relaxed);
  if (n < kRuntimeObjects && !in_runtime_library(function)) {
    g_object_lo[n].store(extent.lo, std::memory_order_relaxed);
    g_object_hi[n].store(extent.hi, std::memory_order_relaxed);
    g_objects.store(n + 1, std::memory_order_release);
  }
  pthread_mutex_unlock(&g_objects_mutex);
}
}  // namespace

bool in_runtime_library(const void* address) noexcept {
  const auto a = reinterpret_cast<uintptr_t>(address);
  const int n = g_objects.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (a >= g_object_lo[i].load(std::memory_order_relaxed) &&
        a < g_object_hi[i].load(std::memory_order_relaxed))
      return true;
  return false;
}

void* resolve_real(ApiId id, const char* name) noexcept {
  // A miss is not cached: a runtime loaded later is found on the next call. Two threads may race
  // here; both find the same address.
  void* p = find_real_symbol(name);
  if (p != nullptr) {
    // prof's own library too: a runtime function that ends in a tail call of another exported
    // function (the simulator's hipEventCreate jumps to hipEventCreateWithFlags) leaves the outer
    // hook's return address, in prof, as the inner call's caller.
    note_runtime_object(reinterpret_cast<const void*>(&resolve_real));
    note_runtime_object(p);
    g_real[api_slot(id)].store(p, std::memory_order_relaxed);
  }
  return p;
}

}  // namespace prof::interpose
