#include "interpose/real_functions.hpp"

#include <dlfcn.h>
#include <link.h>

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
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the program: in the global scope
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  void* p = real_dlsym(handle, search->name);  // not the hooked dlsym: that would answer with prof's hook
  dlclose(handle);
  if (p == nullptr || is_self(p, search->self_base)) return 0;
  search->found = p;
  return 1;
}

const void* self_base() {
  Dl_info info;
  return dladdr(reinterpret_cast<const void*>(&resolve_real), &info) != 0 ? info.dli_fbase : nullptr;
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

void* resolve_real(ApiId id, const char* name) noexcept {
  // A miss is not cached: a runtime loaded later is found on the next call. Two threads may race
  // here; both find the same address.
  void* p = find_real_symbol(name);
  if (p != nullptr) g_real[api_slot(id)].store(p, std::memory_order_relaxed);
  return p;
}

}  // namespace prof::interpose
