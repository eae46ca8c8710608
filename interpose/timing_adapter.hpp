// What device timing needs from a runtime, with its handles as void* and its status as int: one
// instance per runtime (interpose/adapters/<runtime>_adapter.hpp), so device_timing.cpp holds the
// one timing algorithm for every runtime. Each function calls the runtime's real function (never
// a hook) and returns the runtime's status; kNoFunction when the library does not define it.
#pragma once
#include <cstdint>

#include "interpose/real_functions.hpp"
#include "runtimes/api_id.hpp"

namespace prof::interpose {

struct TimingAdapter {
  static constexpr int kNoFunction = -1;

  RuntimeId runtime;
  int success;                          // hipSuccess, musaSuccess
  int not_ready;                        // what an event query returns while the work is in flight
  int (*stream_create)(void** stream);  // a private non-blocking stream
  int (*stream_destroy)(void* stream);
  int (*event_create)(void** event);  // a timing event (default flags)
  int (*event_destroy)(void* event);
  int (*event_record)(void* event, void* stream);
  int (*event_query)(void* event);
  int (*event_synchronize)(void* event);
  int (*event_elapsed_ms)(float* ms, void* start, void* end);
  // Whether `stream` is capturing into a graph (then prof must not record events on it).
  int (*stream_is_capturing)(void* stream, bool* capturing);
  // The calling thread's current device (prof's harvester thread calibrates each device on itself).
  int (*set_device)(int device);
  // Whether the runtime's table hooks its capture begin and end calls
  // (interpose/stream_capture.hpp): then, while no capture is active, stream_is_capturing need not
  // be asked before each launch.
  bool capture_hooked = false;
  // Exports of later library versions that the table does not hook, begin-capture variants among
  // them (nullptr-terminated): if the loaded library defines one, the hooks do not see every
  // capture or every call that enqueues work.
  const char* const* unhooked_exports = nullptr;
  // Whether the table hooks every export of the library (HIP's is checked against the real
  // library's, unit:hip_exports): only then may an op's begin be the previous op's end event,
  // which needs every call that could enqueue work in between to pass through a hook.
  bool every_export_hooked = false;
  // The runtime's per-op device times, when it reports them (its activity interface: HIP's
  // hipInitActivityCallback): subscribes prof's callbacks, which pass what the runtime says to
  // activity_note_id and activity_deliver, and returns whether the runtime took the subscription.
  // Null: device times come from events only.
  bool (*activity_open)() = nullptr;
  // A runtime that reports by external correlation, as CUPTI does (MUPTI, CNPAPI, MSPTI): prof's
  // correlation id is pushed on the calling thread before the call and popped after it, and the
  // runtime's records carry it (the adapter joins them to its kernel and copy records). Null for
  // a runtime that names its ops by an id callback (HIP).
  void (*activity_push)(uint64_t correlation_id) = nullptr;
  void (*activity_pop)() = nullptr;
  // Hands prof the records the runtime holds (its FlushAll), on the harvester's thread, while ops
  // wait for their reports. Null: the runtime reports each op as soon as its times are known.
  void (*activity_flush)() = nullptr;
};

// For an adapter's activity callbacks (device_timing.cpp). On the thread whose call enqueued an
// op, inside that call: the id the runtime gave it (id-callback runtimes).
void activity_note_id(uint64_t runtime_id) noexcept;
// From any thread (the runtime's, or the harvester's in activity_flush): an op's device begin and
// end, host CLOCK_MONOTONIC ns. `id`: the runtime's id for an id-callback runtime, else prof's
// correlation id, as pushed.
void activity_deliver(RuntimeId runtime, uint64_t id, uint64_t begin_ns, uint64_t end_ns) noexcept;

// Every runtime's adapter, indexed by RuntimeId (interpose/timing_adapters.cpp).
extern const TimingAdapter* const kTimingAdapters[kRuntimeCount];

// The adapters' one way to call a runtime: the real function `kId` with `args`, its status as an
// int, or kNoFunction when the loaded library does not define it.
template <ApiId kId, typename... Args>
inline int call_real(Args... args) {
  auto fn = real<kId>();
  return fn ? static_cast<int>(fn(args...)) : TimingAdapter::kNoFunction;
}

}  // namespace prof::interpose
