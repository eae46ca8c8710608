// API ids and names for every runtime prof traces, generated from the roll call
// (runtimes/runtime_list.def) and each runtime's table (runtimes/<folder>/<name>_api.def, gathered
// by the generated runtime_rows.def). Header-only and dependency-free so the collector can
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

// Stored in the db (runtimes.runtime_id); append-only: one per line of runtimes/runtime_list.def.
// roctx and mstx are marker APIs: their rows are markers (the db's markers table), not api_calls.
enum class RuntimeId : uint8_t {
#define PROF_RUNTIME(Enum, ...) k##Enum,
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};
inline constexpr size_t kRuntimeCount = 0
#define PROF_RUNTIME(...) +1
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
    ;

// What a runtime is (runtime_list.def's kind column): which are traced unless flags say otherwise.
enum class RuntimeKind : uint8_t {
  kDevice,  // runs work on a device (streams, events, kernels, copies); traced by default
  kHost,    // MPI: enqueues no device work; traced only with its flag
  kMarker,  // roctx, mstx: marks and ranges only; recorded only with their flag
};

// One runtime's line of runtime_list.def, for the code that needs no API rows (cli, descriptions).
struct RuntimeEntry {
  const char* name;  // as PROF_RUNTIMES and the db spell it
  RuntimeKind kind;
  const char* trace_flag;  // `prof --<trace_flag>`, possibly shared with an earlier runtime
  const char* trace_help;  // "" when the flag is shared with an earlier runtime
};
inline constexpr RuntimeEntry kRuntimes[kRuntimeCount] = {
#define PROF_RUNTIME(Enum, name, folder, exports, kind, flag, help) \
  {#name, RuntimeKind::kind, flag, help},
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};

constexpr bool is_device_runtime(RuntimeId r) {
  const size_t index = static_cast<size_t>(r);
  return index < kRuntimeCount && kRuntimes[index].kind == RuntimeKind::kDevice;
}
inline constexpr uint16_t kRuntimeIdSpan = 1000;
// As PROF_RUNTIMES and `prof --<name>-trace` spell them (runtimes.hpp checks the descriptions
// agree).
inline constexpr const char* kRuntimeNames[kRuntimeCount] = {
#define PROF_RUNTIME(Enum, name, ...) #name,
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};
// The first API id of a runtime's range: its line's index in runtime_list.def times the span.
constexpr uint16_t runtime_id_base(RuntimeId r) {
  return static_cast<uint16_t>(static_cast<size_t>(r) * kRuntimeIdSpan);
}

// Each runtime's rows, numbered from 0 in its table's order: api_rows::<name>::<row>.
namespace api_rows {
#define PROF_RUNTIME_ROWS_BEGIN(Enum, name) \
  namespace name {                          \
  enum Row : uint16_t {
#define PROF_API_ROW(Enum, name, row, ...) row,
#define PROF_RUNTIME_ROWS_END(Enum, name)                                         \
  kCount                                                                          \
  }                                                                               \
  ;                                                                               \
  static_assert(kCount <= kRuntimeIdSpan, #name "'s table outgrew its id range"); \
  }
#include "runtimes/runtime_rows.def"
#undef PROF_RUNTIME_ROWS_BEGIN
#undef PROF_API_ROW
#undef PROF_RUNTIME_ROWS_END
}  // namespace api_rows

enum class ApiId : uint16_t {
#define PROF_API_ROW(Enum, name, row, ...) \
  row = runtime_id_base(RuntimeId::k##Enum) + api_rows::name::row,
#include "runtimes/runtime_rows.def"
#undef PROF_API_ROW
};

// How many rows each runtime's table has, in RuntimeId order.
inline constexpr uint16_t kRuntimeApiCounts[kRuntimeCount] = {
#define PROF_RUNTIME(Enum, name, ...) api_rows::name::kCount,
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};
// The slot of each runtime's first row; the last entry is the total.
inline constexpr std::array<size_t, kRuntimeCount + 1> kRuntimeFirstSlot = [] {
  std::array<size_t, kRuntimeCount + 1> first{};
  for (size_t r = 0; r < kRuntimeCount; ++r) first[r + 1] = first[r] + kRuntimeApiCounts[r];
  return first;
}();

// Every API of every runtime, densely: a slot is an index into the tables below.
inline constexpr size_t kApiCount = kRuntimeFirstSlot[kRuntimeCount];

// The `activity` column: which calls enqueue device work and whether they block until it is done.
// kKernelSync: work that has run when the call returns (ACL's aclmdlExecute), timed like a blocking
// copy.
enum class HookActivity : uint8_t {
  kNone,
  kKernel,
  kCopy,
  kMemset,
  kCopySync,
  kMemsetSync,
  kKernelSync
};

struct ApiInfo {
  uint16_t id;
  RuntimeId runtime;
  std::string_view name;
  HookActivity activity;
  bool
      has_stream;  // the `stream` column names a stream (a literal 0 there means the call has none)
};

#define PROF_API_HAS_STREAM(stream) (sizeof(#stream) != 2 || #stream[0] != '0')
inline constexpr std::array<ApiInfo, kApiCount> kApis = {{
#define PROF_API_ROW(Enum, name, row, ret, params, args, activity, stream, ...)         \
  {static_cast<uint16_t>(ApiId::row), RuntimeId::k##Enum, #row, HookActivity::activity, \
   PROF_API_HAS_STREAM(stream)},
#include "runtimes/runtime_rows.def"
#undef PROF_API_ROW
}};
#undef PROF_API_HAS_STREAM

// The slot of an id, or kApiCount for an id no table holds (a newer prof's, or a corrupt record).
constexpr size_t api_slot(uint16_t id) {
  const size_t runtime = id / kRuntimeIdSpan;
  const size_t row = id % kRuntimeIdSpan;
  if (runtime >= kRuntimeCount || row >= kRuntimeApiCounts[runtime]) return kApiCount;
  return kRuntimeFirstSlot[runtime] + row;
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
