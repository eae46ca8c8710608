// The interposition floor: a preload library that exports every function of hip_api.def and
// only forwards it to the runtime (dlsym(RTLD_NEXT), cached in a relaxed atomic exactly as prof's
// real<>() does). Whatever a profiler costs beyond this library is the profiler's own work.
#include <dlfcn.h>

#include <atomic>

#include "common/record.hpp"
#include "runtimes/hip/hip_abi.hpp"

#define PROF_NOOP_EXPORT __attribute__((visibility("default")))

namespace {

void* lookup(std::atomic<void*>& cache, const char* name) noexcept {
  void* p = cache.load(std::memory_order_relaxed);
  if (!p) [[unlikely]] {
    p = dlsym(RTLD_NEXT, name);
    cache.store(p, std::memory_order_relaxed);
  }
  return p;
}

}  // namespace

#define PROF_HIP_API(NAME, RET, PARAMS, ARGS, ...)                     \
  extern "C" PROF_NOOP_EXPORT RET NAME PARAMS {                        \
    static std::atomic<void*> cache{nullptr};                          \
    return reinterpret_cast<RET(*) PARAMS>(lookup(cache, #NAME)) ARGS; \
  }
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
