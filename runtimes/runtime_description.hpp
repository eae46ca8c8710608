// What the runtime-neutral core (collector, db, reports) needs to know about one runtime: its
// words and file names. Each runtime fills one in runtimes/<runtime>/<runtime>_description.hpp;
// runtimes/runtimes.hpp lists them. Labels are stored in every database (the `runtimes` table),
// so reports read them from there, not from here.
#pragma once
#include <span>
#include <string_view>

#include "runtimes/api_id.hpp"

namespace prof {

// What an allocation call does to the memory in use (the reports' memory view). An allocation
// records its size in `bytes` and the pointer it returned in `aux`; a release records the pointer
// in `aux`, and frees whatever allocation of the same runtime returned that pointer.
enum class MemoryRole : uint8_t { kAllocDevice, kAllocHost, kAllocManaged, kFree };
struct MemoryCall {
  ApiId api;
  MemoryRole role;
};

// What a host-register call does to the host memory the device can reach directly (pinned): a
// register records the range's size in `bytes` and its start in `aux`; an unregister records the
// pointer in `aux` and ends whatever range of the same runtime begins there. Pinned allocations
// are memory_calls' kAllocHost; these are the application's own memory, pinned in place.
enum class PinRole : uint8_t { kRegister, kUnregister };
struct PinCall {
  ApiId api;
  PinRole role;
};

// The one named argument of a host<->device copy (the device runtimes' arg_names): the host side's
// pointer, src of an H2D copy and dst of a D2H one (none for a Default or unknown kind).
inline constexpr std::string_view kHostPointerArg = "host_ptr";
inline constexpr std::string_view kHostCopyArgNames[] = {kHostPointerArg};

struct RuntimeDescription {
  RuntimeId id;
  std::string_view name;          // "hip": meta.runtime, the db's name <name>-prof-<pid>.db
  std::string_view api_title;     // "HIP API": the summary's API table heading
  std::string_view stream_label;  // "Stream" (CNRT would say "Queue")
  std::string_view device_label;  // "Device" (CNRT "MLU", ACL "NPU")
  std::string_view api_csv_stem;  // "hiptrace": the API statistics are <base>.<stem>.csv
  std::span<const ApiId> stream_creators;  // calls whose aux is a created stream handle
  // Handles besides 0 that name the legacy default stream (MUSA's musaStreamLegacy): recorded as
  // stream 0, the default stream, like a null handle.
  std::span<const uint64_t> default_stream_aliases;
  // The calls that allocate or free memory (none: the runtime has no memory view).
  std::span<const MemoryCall> memory_calls = {};
  // Non-empty: the runtime's calls take a lane of their own on each thread, "<own_lane> (Thread N)"
  // (MPI), instead of sharing the thread's lane with the device runtimes.
  std::string_view own_lane = {};
  // The names of the values a call's ArgsRecord carries (common/record.hpp), in order.
  std::span<const std::string_view> arg_names = {};
  // The calls that block the host until device work has finished (device, stream, event or
  // notifier synchronize): `prof --analyze` reads a wait after every launch from them.
  std::span<const ApiId> wait_calls = {};
  // The calls whose non-zero result is an answer, not a failure ("not ready yet" from a query,
  // an earlier call's error from get-last-error): `prof --analyze` counts no error for them.
  std::span<const ApiId> status_queries = {};
  // The calls that pin or unpin host memory in place (hipHostRegister; none: the runtime has
  // none, or prof does not hook them).
  std::span<const PinCall> pin_calls = {};
};

}  // namespace prof
