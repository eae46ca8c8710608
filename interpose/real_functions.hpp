// The runtime's own functions, found on first use (RTLD_NEXT, else the local scope of whichever
// loaded library reaches the runtime: see real_functions.cpp) and cached. prof's own calls into the
// runtime (device timing) go through here, never through its hooks.
#pragma once
#include <atomic>

#include "common/record.hpp"
#include "runtimes/api_id.hpp"
#include "runtimes/runtime_abi_headers.hpp"

namespace prof::interpose {

template <ApiId>
struct ApiTraits;
// One specialisation per row of every runtime's table.
#define PROF_API_ROW(Enum, name, row, ret, params, ...) \
  template <>                                           \
  struct ApiTraits<ApiId::row> {                        \
    using Fn = ret(*) params;                           \
    static constexpr const char* kName = #row;          \
  };
// C++-linkage rows (hip_api.def's PROF_HIP_API_CXX) are looked up by their mangled symbol.
#define PROF_API_ROW_CXX(Enum, name, row, symbol, qualified, ret, params, ...) \
  template <>                                                                  \
  struct ApiTraits<ApiId::row> {                                               \
    using Fn = ret(*) params;                                                  \
    static constexpr const char* kName = symbol;                               \
  };
#include "runtimes/runtime_rows.def"
#undef PROF_API_ROW
#undef PROF_API_ROW_CXX

extern std::atomic<void*> g_real[kApiCount];
void* resolve_real(ApiId id, const char* name) noexcept;
// Where a loaded runtime library defines `name` (searched as resolve_real does, never prof's own
// exports, nothing cached); nullptr when none does.
void* find_real_symbol(const char* name) noexcept;
// Whether `address` is code of a library that defines a real function prof has resolved (a
// runtime), or of prof's own: a traced call made from there, inside another traced call, is the
// runtime's own (its hipEventCreate calling its exported hipEventCreateWithFlags), not the
// program's. Async-signal-safe: reads the ranges resolve_real recorded.
bool in_runtime_library(const void* address) noexcept;

// nullptr when no loaded library defines the function.
template <ApiId kId>
inline typename ApiTraits<kId>::Fn real() noexcept {
  constexpr size_t kSlot = api_slot(kId);
  void* p = g_real[kSlot].load(std::memory_order_relaxed);
  if (!p) [[unlikely]]
    p = resolve_real(kId, ApiTraits<kId>::kName);
  return reinterpret_cast<typename ApiTraits<kId>::Fn>(p);
}

}  // namespace prof::interpose
