// Device timing from the runtime's own events: the hook records an event before and after each
// kernel, copy and memset on the same stream; a harvester thread in the profiled process later
// reads them (an event query, never a wait on the application's work) and converts them to the
// host clock against an anchor event whose host time was calibrated on a private stream. One
// algorithm for every runtime: a TimingAdapter supplies the runtime's event calls.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/record.hpp"
#include "interpose/timing_adapter.hpp"

namespace prof::interpose {

struct PooledEvent {
  void* event = nullptr;
  int device = 0;
  uint32_t epoch = 0;  // events of an earlier epoch died in a device reset
  RuntimeId runtime = RuntimeId::kHip;
};

struct ThreadTiming;

struct TimingTicket {
  ThreadTiming* owner = nullptr;  // nullptr: no timing for this call
  bool captured = false;          // the stream was capturing: the call made a graph node
  bool begin_borrowed = false;    // begin is the previous op's end event (one event per boundary)
  bool by_activity = false;       // no events: the runtime reports the op's device times itself
  bool probe = false;             // events, and this call tells whether the runtime's reports work
  bool span = false;              // events, and prof's id pushed: the ops' reports span the call
  uint64_t predecessor_id = 0;    // that op's correlation id
  PooledEvent begin;
  PooledEvent end;
};

// Calls on this thread that may have enqueued device work, and threads that ever made one: an
// op's end event may serve as the next op's begin only if nothing was enqueued in between
// (timing_begin). Bumped by every hook that may enqueue, before its real call.
extern constinit __attribute__((tls_model("initial-exec"))) thread_local uint64_t t_enqueues;
extern constinit __attribute__((tls_model("initial-exec"))) thread_local bool t_enqueuer;
extern std::atomic<int> g_enqueue_threads;
void note_enqueuer() noexcept;
inline void note_enqueue() noexcept {
  if (!t_enqueuer) [[unlikely]]
    note_enqueuer();
  ++t_enqueues;
}

// Before the real call: records the begin event on `stream`. Skipped (ticket stays empty) when
// timing is off, the stream is being captured, or the event pool cannot supply events.
// `blocking`: the call waits for its work (such an op neither lends nor borrows a boundary event).
// `one_op`: the call enqueues one op (not a graph launch, whose span only events around it give):
// then, when the runtime reports per-op device times (TimingAdapter::activity_open), no event is
// recorded at all and the op's times are the ones the runtime reports.
void timing_begin(TimingTicket& ticket, const TimingAdapter& adapter, void* stream, bool blocking,
                  bool one_op, uint64_t correlation_id) noexcept;
// After the real call: records the end event only if the call succeeded (so the application's
// last-error state is what the call left), and queues the pair for the harvester.
void timing_end(TimingTicket& ticket, bool call_succeeded, void* stream, uint64_t correlation_id,
                Activity activity, bool blocking, uint64_t submit_ns, uint64_t api_end_ns) noexcept;

void timing_set_current_device(RuntimeId runtime, int device) noexcept;
// A thread's first traced call (in the program's set-up: devices, streams, memory), of `runtime`:
// the first such call of each runtime looks up whether its capture calls are all hooked
// (stream_capture_tracked: a search of the loaded libraries' exports, about 80 us), so that the
// program's first timed call does not. (A runtime whose first call comes on a thread that already
// made another runtime's calls is looked up at its first timed call, as before.) On this thread,
// not the harvester's: a search there held the dynamic linker's lock while the program's thread
// resolved its first calls. Nothing is called in the runtime (it may not be initialised yet:
// aclInit). The process's first such call of a device runtime also starts the harvester thread,
// idle (it makes no runtime call until there is work), so its start-up is in the program's set-up
// and never competes with the program's first timed calls; a process that never calls a device
// runtime (a launcher's shells, a tool it runs) gets no thread from prof. (A thread whose first
// call was another runtime's, MPI_Init, starts it at its first timed call.)
void timing_thread_started(RuntimeId runtime) noexcept;
// A device reset (hipDeviceReset, musaDeviceReset) destroys every event: harvest what is in
// flight first, then retire the pools (of every runtime: simpler, and resets are rare).
void timing_before_device_reset() noexcept;
// After the reset call: the pools the harvester stocked meanwhile are retired too.
void timing_after_device_reset() noexcept;
// Normal exit: harvest what completes within a short grace period, then stop the harvester.
void timing_shutdown() noexcept;
// The process ends without exit handlers (a fatal signal, _exit; interpose/abrupt_end.hpp): the
// harvester harvests what has completed, while this thread waits (bounded). Async-signal-safe.
void timing_harvest_before_end() noexcept;
void timing_after_fork_child() noexcept;

}  // namespace prof::interpose
