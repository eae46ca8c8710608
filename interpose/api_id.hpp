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

inline std::string_view api_name(uint16_t id) { return id < kApiCount ? kApiNames[id] : std::string_view("unknown"); }

}  // namespace prof
