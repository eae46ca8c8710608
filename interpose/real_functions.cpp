#include "interpose/real_functions.hpp"

#include <dlfcn.h>

namespace prof::interpose {

std::atomic<void*> g_real[kApiCount];

void* resolve_real(ApiId id, const char* name) noexcept {
  // RTLD_NEXT: the first definition after this library in the lookup order, i.e. the runtime's.
  // Two threads may race here; both find the same address.
  void* p = dlsym(RTLD_NEXT, name);
  g_real[api_slot(id)].store(p, std::memory_order_relaxed);
  return p;
}

}  // namespace prof::interpose
