// Every runtime prof knows, indexed by RuntimeId. Adding a runtime adds one line here.
#pragma once
#include <array>
#include <optional>

#include "runtimes/hip/hip_description.hpp"
#include "runtimes/musa/musa_description.hpp"
#include "runtimes/cnrt/cnrt_description.hpp"
#include "runtimes/acl/acl_description.hpp"
#include "runtimes/mpi/mpi_description.hpp"
#include "runtimes/roctx/roctx_description.hpp"
#include "runtimes/acl/mstx_description.hpp"

namespace prof {

inline constexpr std::array<const RuntimeDescription*, kRuntimeCount> kRuntimeDescriptions = {
    &kHipDescription, &kMusaDescription, &kCnrtDescription, &kAclDescription, &kMpiDescription,
    &kRoctxDescription, &kMstxDescription};

static_assert(kHipDescription.name == std::string_view(kRuntimeNames[0]) &&
              kMusaDescription.name == std::string_view(kRuntimeNames[1]) &&
              kCnrtDescription.name == std::string_view(kRuntimeNames[2]) &&
              kAclDescription.name == std::string_view(kRuntimeNames[3]) &&
              kMpiDescription.name == std::string_view(kRuntimeNames[4]) &&
              kRoctxDescription.name == std::string_view(kRuntimeNames[5]) &&
              kMstxDescription.name == std::string_view(kRuntimeNames[6]));
static_assert(kHipDescription.id == RuntimeId::kHip && kMusaDescription.id == RuntimeId::kMusa &&
              kCnrtDescription.id == RuntimeId::kCnrt && kAclDescription.id == RuntimeId::kAcl &&
              kMpiDescription.id == RuntimeId::kMpi && kRoctxDescription.id == RuntimeId::kRoctx &&
              kMstxDescription.id == RuntimeId::kMstx);

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
  for (const MemoryCall& call : kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->memory_calls)
    if (static_cast<uint16_t>(call.api) == api_id) return call.role;
  return std::nullopt;
}

// The stream a call's handle names, with the runtime's aliases of the default stream as 0.
inline uint64_t canonical_stream(const ApiInfo& api, uint64_t handle) {
  for (uint64_t alias : kRuntimeDescriptions[static_cast<size_t>(api.runtime)]->default_stream_aliases)
    if (handle == alias) return 0;
  return handle;
}

}  // namespace prof
