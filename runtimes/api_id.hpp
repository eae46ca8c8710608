// API ids and names for every runtime prof traces, generated from each runtime's table
// (runtimes/<runtime>/<runtime>_api.def). Header-only and dependency-free so the collector can
// name every API without linking the preload library.
//
// Ids are stored in databases, so they are append-only and unique across runtimes: each runtime
// owns a range [base, base + kRuntimeIdSpan) and its rows take base + row index. HIP's range starts
// at 0, so HIP ids are the ones databases written before MUSA existed hold.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace prof {

// Stored in the db (runtimes.runtime_id); append-only.
// roctx and mstx are marker APIs: their rows are markers (the db's markers table), not api_calls.
enum class RuntimeId : uint8_t { kHip = 0, kMusa = 1, kCnrt = 2, kAcl = 3, kMpi = 4, kRoctx = 5, kMstx = 6 };
inline constexpr size_t kRuntimeCount = 7;
// The runtimes that run work on a device (streams, events, kernels, copies); MPI and the marker
// APIs enqueue none.
constexpr bool is_device_runtime(RuntimeId r) {
  return r == RuntimeId::kHip || r == RuntimeId::kMusa || r == RuntimeId::kCnrt || r == RuntimeId::kAcl;
}
inline constexpr uint16_t kRuntimeIdSpan = 1000;
// As PROF_RUNTIMES and `prof --<name>-trace` spell them (runtimes.hpp checks the descriptions agree).
inline constexpr const char* kRuntimeNames[kRuntimeCount] = {"hip", "musa", "cnrt", "acl", "mpi", "roctx", "mstx"};

namespace api_rows {
namespace hip {
enum Row : uint16_t {
#define PROF_HIP_API(name, ...) name,
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
  kCount
};
}  // namespace hip
namespace musa {
enum Row : uint16_t {
#define PROF_MUSA_API(name, ...) name,
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
  kCount
};
}  // namespace musa
namespace cnrt {
enum Row : uint16_t {
#define PROF_CNRT_API(name, ...) name,
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
  kCount
};
}  // namespace cnrt
namespace acl {
enum Row : uint16_t {
#define PROF_ACL_API(name, ...) name,
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
  kCount
};
}  // namespace acl
namespace mpi {
enum Row : uint16_t {
#define PROF_MPI_API(name, ...) name,
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API
  kCount
};
}  // namespace mpi
namespace roctx {
enum Row : uint16_t {
#define PROF_ROCTX_API(name, ...) name,
#include "runtimes/roctx/roctx_api.def"
#undef PROF_ROCTX_API
  kCount
};
}  // namespace roctx
namespace mstx {
enum Row : uint16_t {
#define PROF_MSTX_API(name, ...) name,
#include "runtimes/acl/mstx_api.def"
#undef PROF_MSTX_API
  kCount
};
}  // namespace mstx
}  // namespace api_rows

inline constexpr uint16_t kHipIdBase = 0 * kRuntimeIdSpan;
inline constexpr uint16_t kMusaIdBase = 1 * kRuntimeIdSpan;
inline constexpr uint16_t kCnrtIdBase = 2 * kRuntimeIdSpan;
inline constexpr uint16_t kAclIdBase = 3 * kRuntimeIdSpan;
inline constexpr uint16_t kMpiIdBase = 4 * kRuntimeIdSpan;
inline constexpr uint16_t kRoctxIdBase = 5 * kRuntimeIdSpan;
inline constexpr uint16_t kMstxIdBase = 6 * kRuntimeIdSpan;
static_assert(api_rows::hip::kCount <= kRuntimeIdSpan && api_rows::musa::kCount <= kRuntimeIdSpan &&
              api_rows::cnrt::kCount <= kRuntimeIdSpan && api_rows::acl::kCount <= kRuntimeIdSpan &&
              api_rows::mpi::kCount <= kRuntimeIdSpan && api_rows::roctx::kCount <= kRuntimeIdSpan &&
              api_rows::mstx::kCount <= kRuntimeIdSpan);

enum class ApiId : uint16_t {
#define PROF_HIP_API(name, ...) name = kHipIdBase + api_rows::hip::name,
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#define PROF_MUSA_API(name, ...) name = kMusaIdBase + api_rows::musa::name,
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
#define PROF_CNRT_API(name, ...) name = kCnrtIdBase + api_rows::cnrt::name,
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
#define PROF_ACL_API(name, ...) name = kAclIdBase + api_rows::acl::name,
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
#define PROF_MPI_API(name, ...) name = kMpiIdBase + api_rows::mpi::name,
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API
#define PROF_ROCTX_API(name, ...) name = kRoctxIdBase + api_rows::roctx::name,
#include "runtimes/roctx/roctx_api.def"
#undef PROF_ROCTX_API
#define PROF_MSTX_API(name, ...) name = kMstxIdBase + api_rows::mstx::name,
#include "runtimes/acl/mstx_api.def"
#undef PROF_MSTX_API
};

// Every API of every runtime, densely: a slot is an index into the tables below.
inline constexpr size_t kApiCount =
    size_t{api_rows::hip::kCount} + size_t{api_rows::musa::kCount} + size_t{api_rows::cnrt::kCount} +
    size_t{api_rows::acl::kCount} + size_t{api_rows::mpi::kCount} + size_t{api_rows::roctx::kCount} +
    size_t{api_rows::mstx::kCount};

// The `activity` column: which calls enqueue device work and whether they block until it is done.
// kKernelSync: work that has run when the call returns (ACL's aclmdlExecute), timed like a blocking copy.
enum class HookActivity : uint8_t { kNone, kKernel, kCopy, kMemset, kCopySync, kMemsetSync, kKernelSync };

struct ApiInfo {
  uint16_t id;
  RuntimeId runtime;
  std::string_view name;
  HookActivity activity;
  bool has_stream;  // the `stream` column names a stream (a literal 0 there means the call has none)
};

#define PROF_API_HAS_STREAM(stream) (sizeof(#stream) != 2 || #stream[0] != '0')
inline constexpr std::array<ApiInfo, kApiCount> kApis = {{
#define PROF_HIP_API(name, ret, params, args, activity, stream, ...)                                       \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kHip, #name, HookActivity::activity,                     \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#define PROF_MUSA_API(name, ret, params, args, activity, stream, ...)                                      \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kMusa, #name, HookActivity::activity,                    \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
#define PROF_CNRT_API(name, ret, params, args, activity, stream, ...)                                      \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kCnrt, #name, HookActivity::activity,                    \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
#define PROF_ACL_API(name, ret, params, args, activity, stream, ...)                                       \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kAcl, #name, HookActivity::activity,                     \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
#define PROF_MPI_API(name, ret, params, args, activity, stream, ...)                                       \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kMpi, #name, HookActivity::activity,                     \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API
#define PROF_ROCTX_API(name, ret, params, args, activity, stream, ...)                                     \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kRoctx, #name, HookActivity::activity,                   \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/roctx/roctx_api.def"
#undef PROF_ROCTX_API
#define PROF_MSTX_API(name, ret, params, args, activity, stream, ...)                                      \
  {static_cast<uint16_t>(ApiId::name), RuntimeId::kMstx, #name, HookActivity::activity,                    \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/acl/mstx_api.def"
#undef PROF_MSTX_API
}};
#undef PROF_API_HAS_STREAM

// The slot of an id, or kApiCount for an id no table holds (a newer prof's, or a corrupt record).
constexpr size_t api_slot(uint16_t id) {
  if (id >= kHipIdBase && id < kHipIdBase + api_rows::hip::kCount) return id - kHipIdBase;
  if (id >= kMusaIdBase && id < kMusaIdBase + api_rows::musa::kCount)
    return size_t{api_rows::hip::kCount} + (id - kMusaIdBase);
  if (id >= kCnrtIdBase && id < kCnrtIdBase + api_rows::cnrt::kCount)
    return size_t{api_rows::hip::kCount} + size_t{api_rows::musa::kCount} + (id - kCnrtIdBase);
  if (id >= kAclIdBase && id < kAclIdBase + api_rows::acl::kCount)
    return size_t{api_rows::hip::kCount} + size_t{api_rows::musa::kCount} + size_t{api_rows::cnrt::kCount} +
           (id - kAclIdBase);
  if (id >= kMpiIdBase && id < kMpiIdBase + api_rows::mpi::kCount)
    return size_t{api_rows::hip::kCount} + size_t{api_rows::musa::kCount} + size_t{api_rows::cnrt::kCount} +
           size_t{api_rows::acl::kCount} + (id - kMpiIdBase);
  constexpr size_t kBeforeRoctx = size_t{api_rows::hip::kCount} + size_t{api_rows::musa::kCount} +
                                  size_t{api_rows::cnrt::kCount} + size_t{api_rows::acl::kCount} +
                                  size_t{api_rows::mpi::kCount};
  if (id >= kRoctxIdBase && id < kRoctxIdBase + api_rows::roctx::kCount) return kBeforeRoctx + (id - kRoctxIdBase);
  if (id >= kMstxIdBase && id < kMstxIdBase + api_rows::mstx::kCount)
    return kBeforeRoctx + size_t{api_rows::roctx::kCount} + (id - kMstxIdBase);
  return kApiCount;
}
constexpr size_t api_slot(ApiId id) { return api_slot(static_cast<uint16_t>(id)); }

inline const ApiInfo* find_api(uint16_t id) {
  const size_t slot = api_slot(id);
  return slot < kApiCount ? &kApis[slot] : nullptr;
}
inline std::string_view api_name(uint16_t id) {
  const ApiInfo* info = find_api(id);
  return info ? info->name : std::string_view("unknown");
}

}  // namespace prof
