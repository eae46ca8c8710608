// The runtime's own functions, found on first use (RTLD_NEXT, else the local scope of whichever loaded
// library reaches the runtime: see real_functions.cpp) and cached. prof's own
// calls into the runtime (device timing) go through here, never through its hooks.
#pragma once
#include <atomic>

#include "common/record.hpp"
#include "runtimes/api_id.hpp"
#include "runtimes/hip/hip_abi.hpp"
#include "runtimes/musa/musa_abi.hpp"
#include "runtimes/cnrt/cnrt_abi.hpp"
#include "runtimes/acl/acl_abi.hpp"
#include "runtimes/mpi/mpi_abi.hpp"
#include "runtimes/roctx/roctx_abi.hpp"

namespace prof::interpose {

template <ApiId>
struct ApiTraits;
// One specialisation per row of every runtime's table.
#define PROF_API_TRAITS(name, ret, params, ...) \
  template <>                                   \
  struct ApiTraits<ApiId::name> {               \
    using Fn = ret(*) params;                   \
    static constexpr const char* kName = #name; \
  };
// C++-linkage rows (hip_api.def's PROF_HIP_API_CXX) are looked up by their mangled symbol.
#define PROF_HIP_API_CXX(name, symbol, qualified, ret, params, ...) \
  template <>                                                     \
  struct ApiTraits<ApiId::name> {                                 \
    using Fn = ret(*) params;                                     \
    static constexpr const char* kName = symbol;                  \
  };
#define PROF_HIP_API PROF_API_TRAITS
#define PROF_MUSA_API PROF_API_TRAITS
#define PROF_CNRT_API PROF_API_TRAITS
#define PROF_ACL_API PROF_API_TRAITS
#define PROF_MPI_API PROF_API_TRAITS
#define PROF_ROCTX_API PROF_API_TRAITS
#define PROF_MSTX_API PROF_API_TRAITS
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API_CXX
#include "runtimes/musa/musa_api.def"
#include "runtimes/cnrt/cnrt_api.def"
#include "runtimes/acl/acl_api.def"
#include "runtimes/mpi/mpi_api.def"
#include "runtimes/roctx/roctx_api.def"
#include "runtimes/acl/mstx_api.def"
#undef PROF_HIP_API
#undef PROF_MUSA_API
#undef PROF_CNRT_API
#undef PROF_ACL_API
#undef PROF_MPI_API
#undef PROF_ROCTX_API
#undef PROF_MSTX_API
#undef PROF_API_TRAITS

extern std::atomic<void*> g_real[kApiCount];
void* resolve_real(ApiId id, const char* name) noexcept;
// Where a loaded runtime library defines `name` (searched as resolve_real does, never prof's own
// exports, nothing cached); nullptr when none does.
void* find_real_symbol(const char* name) noexcept;
// Whether `address` is code of a library that defines a real function prof has resolved (a
// runtime), or of prof's own: a traced call made from there, inside another traced call, is the
// runtime's own (its hipEventCreate calling its exported hipEventCreateWithFlags), not the program's.
// Async-signal-safe: reads the ranges resolve_real recorded.
bool in_runtime_library(const void* address) noexcept;

// nullptr when no loaded library defines the function.
template <ApiId kId>
inline typename ApiTraits<kId>::Fn real() noexcept {
  void* p = g_real[api_slot(kId)].load(std::memory_order_relaxed);
  if (!p) [[unlikely]]
    p = resolve_real(kId, ApiTraits<kId>::kName);
  return reinterpret_cast<typename ApiTraits<kId>::Fn>(p);
}

}  // namespace prof::interpose
