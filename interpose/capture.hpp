// Capture control (--trace-start off, --delay, --duration): whether calls are recorded now. One
// process-wide flag, read with one relaxed load at the top of every hook; outside a window a hook
// is that load plus the real call. Switching is rare (the program's hipProfilerStart/Stop,
// roctxProfilerResume/Pause, or prof's timer thread) and is itself recorded as a CaptureRecord in
// the switching thread's ring, so the collector knows every window.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/record.hpp"

namespace prof::interpose {

// true unless capture control holds recording off (initially off with --trace-start off or
// --delay).
extern std::atomic<bool> g_capture_on;
// Set once at load: the program's start/stop calls switch recording (--trace-start off).
extern bool g_capture_by_api;

inline bool capturing() noexcept { return g_capture_on.load(std::memory_order_relaxed); }

// --delay/--duration's timer thread is started by the process's first call, not at load
// (capture_arm). Read only outside a window, and when a thread first records.
extern std::atomic<bool> g_capture_timer_pending;
// Starts the timer (once); a first call after the delay opens the window itself. Returns
// capturing().
bool capture_arm() noexcept;

// Whether the hook records this call: capturing(), and outside a window, the timer's start.
inline bool recording_now() noexcept {
  if (capturing()) [[likely]]
    return true;
  if (g_capture_timer_pending.load(std::memory_order_relaxed)) [[unlikely]]
    return capture_arm();
  return false;
}

// Switches recording on or off at `time_ns` and records the switch (nothing when already so).
// Called by the start/stop hooks (cause kProfilerApi) and the timer thread (kTimer).
void capture_switch(bool on, CaptureCause cause, uint16_t api_id, uint64_t time_ns) noexcept;

// Reads PROF_CAPTURE (api|timer), PROF_CAPTURE_DELAY_NS and PROF_CAPTURE_DURATION_NS at load;
// the timer for --delay/--duration waits for capture_arm.
void capture_start(uint64_t start_ns) noexcept;
// In a forked child: its own log, holding the state it was forked in.
void capture_after_fork_child() noexcept;

}  // namespace prof::interpose
