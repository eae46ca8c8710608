// Every runtime prof knows, indexed by RuntimeId: one description per line of
// runtimes/runtime_list.def (each runtimes/<folder>/<name>_description.hpp, included by the
// generated runtime_description_headers.hpp).
#pragma once
#include <array>
#include <optional>

#include "runtimes/runtime_description_headers.hpp"

namespace prof {

inline constexpr std::array<const RuntimeDescription*, kRuntimeCount> kRuntimeDescriptions = {
#define PROF_RUNTIME(Enum, ...) &k##Enum##Description,
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};

#define PROF_RUNTIME(Enum, rt, ...)                                     \
  static_assert(k##Enum##Description.id == RuntimeId::k##Enum &&        \
                    k##Enum##Description.name == std::string_view(#rt), \
                "k" #Enum "Description disagrees with its line in runtimes/runtime_list.def");
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME

inline const RuntimeDescription* find_runtime(int64_t id) {
  if (id < 0 || static_cast<size_t>(id) >= kRuntimeCount) return nullptr;
  return kRuntimeDescriptions[static_cast<size_t>(id)];
}

inline bool creates_stream(uint16_t api_id) {
  const ApiInfo* api = find_api(api_id);
  if (!api) return false;
  for (ApiId creator : kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->stream_creators)
    if (static_cast<uint16_t>(creator) == api_id) return true;
  return false;
}

// What the call does to the memory in use, if anything (the API's runtime's memory_calls).
inline std::optional<MemoryRole> memory_role(uint16_t api_id) {
  const ApiInfo* api = find_api(api_id);
  if (!api) return std::nullopt;
  for (const MemoryCall& call :
       kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->memory_calls)
    if (static_cast<uint16_t>(call.api) == api_id) return call.role;
  return std::nullopt;
}

// Whether the call is one of its runtime's wait_calls (blocks the host until device work ends).
inline bool is_wait_call(uint16_t api_id) {
  const ApiInfo* api = find_api(api_id);
  if (!api) return false;
  for (ApiId wait : kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->wait_calls)
    if (static_cast<uint16_t>(wait) == api_id) return true;
  return false;
}

// Whether the call's non-zero result is an answer rather than an error (its runtime's
// status_queries).
inline bool is_status_query(uint16_t api_id) {
  const ApiInfo* api = find_api(api_id);
  if (!api) return false;
  for (ApiId query : kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->status_queries)
    if (static_cast<uint16_t>(query) == api_id) return true;
  return false;
}

// What the call does to the pinned host ranges, if anything (the API's runtime's pin_calls).
inline std::optional<PinRole> pin_role(uint16_t api_id) {
  const ApiInfo* api = find_api(api_id);
  if (!api) return std::nullopt;
  for (const PinCall& call : kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->pin_calls)
    if (static_cast<uint16_t>(call.api) == api_id) return call.role;
  return std::nullopt;
}

// The stream a call's handle names, with the runtime's aliases of the default stream as 0.
inline uint64_t canonical_stream(const ApiInfo& api, uint64_t handle) {
  for (uint64_t alias :
       kRuntimeDescriptions[static_cast<size_t>(api.runtime)]->default_stream_aliases)
    if (handle == alias) return 0;
  return handle;
}

}  // namespace prof
