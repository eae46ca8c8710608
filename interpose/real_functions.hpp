// The runtime's own functions, found with dlsym(RTLD_NEXT) on first use and cached. prof's own
// calls into the runtime (device timing) go through here, never through its hooks.
#pragma once
#include <atomic>

#include "collector/record.hpp"
#include "interpose/api_id.hpp"
#include "interpose/hip_abi.hpp"

namespace prof::interpose {

template <ApiId>
struct ApiTraits;
#define PROF_HIP_API(name, ret, params, ...)                      \
  template <>                                                     \
  struct ApiTraits<ApiId::name> {                                 \
    using Fn = ret(*) params;                                     \
    static constexpr const char* kName = #name;                   \
  };
#include "interpose/hip_api.def"
#undef PROF_HIP_API

extern std::atomic<void*> g_real[kApiCount];
void* resolve_real(ApiId id, const char* name) noexcept;

// nullptr when no loaded library defines the function.
template <ApiId kId>
inline typename ApiTraits<kId>::Fn real() noexcept {
  void* p = g_real[static_cast<size_t>(kId)].load(std::memory_order_relaxed);
  if (!p) [[unlikely]]
    p = resolve_real(kId, ApiTraits<kId>::kName);
  return reinterpret_cast<typename ApiTraits<kId>::Fn>(p);
}

}  // namespace prof::interpose
