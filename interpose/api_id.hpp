// API ids and names, generated from hip_api.def. Header-only and dependency-free so the
// collector can name every API without linking the preload library.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace prof {

enum class ApiId : uint16_t {
#define PROF_HIP_API(name, ...) name,
#include "interpose/hip_api.def"
#undef PROF_HIP_API
  kCount
};

inline constexpr size_t kApiCount = static_cast<size_t>(ApiId::kCount);

inline constexpr std::array<std::string_view, kApiCount> kApiNames = {
#define PROF_HIP_API(name, ...) #name,
#include "interpose/hip_api.def"
#undef PROF_HIP_API
};

// The `activity` column: which calls enqueue device work and whether they block until it is done.
enum class HookActivity : uint8_t { kNone, kKernel, kCopy, kMemset, kCopySync, kMemsetSync };

inline constexpr std::array<HookActivity, kApiCount> kApiActivity = {
#define PROF_HIP_API(name, ret, params, args, activity, ...) HookActivity::activity,
#include "interpose/hip_api.def"
#undef PROF_HIP_API
};

// Whether the `stream` column names a stream (a literal 0 there means the call has none).
inline constexpr std::array<bool, kApiCount> kApiHasStream = {
#define PROF_HIP_API(name, ret, params, args, activity, stream, ...) (sizeof(#stream) != 2 || #stream[0] != '0'),
#include "interpose/hip_api.def"
#undef PROF_HIP_API
};

inline std::string_view api_name(uint16_t id) { return id < kApiCount ? kApiNames[id] : std::string_view("unknown"); }

}  // namespace prof
