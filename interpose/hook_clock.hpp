// The hooks' clock: CLOCK_MONOTONIC nanoseconds (common/clock.hpp), read from the time-stamp
// counter where the kernel itself keeps CLOCK_MONOTONIC on it. A hook takes two readings per call;
// clock_gettime costs about 24 ns here and an RDTSC about 10, which is most of what a hook adds.
//
// ns = ns0 + (tsc - tsc0) * mult / 2^32 over a segment of about 10 ms. The first hook whose call
// ends past a segment's due time, after recording the call, reads CLOCK_MONOTONIC once (bracketed
// by two counter reads) and starts the next segment where the current one has got to, with a slope
// that brings the reading back onto CLOCK_MONOTONIC by the segment's end: readings never jump and
// stay within tens of ns of the kernel's clock (docs/design-hooks.md, "The hooks' clock"). During
// the first 10 ms of the process (and of a fork's child), and wherever the counter is not the
// kernel's clock source (or PROF_HOOK_CLOCK=clock_gettime), it is clock_gettime itself.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/clock.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace prof::interpose {

struct alignas(64) HookClock {
  std::atomic<uint32_t> seq{0};  // odd while a thread starts a new segment
  std::atomic<uint64_t> tsc0{0};
  std::atomic<uint64_t> ns0{0};
  std::atomic<uint64_t> mult{0};
  std::atomic<uint64_t> end_tsc{0};          // readings extrapolate to here; 0: not calibrated yet
  std::atomic<uint64_t> due_ns{UINT64_MAX};  // the next segment is begun after a call ending here
  bool counter = false;                      // the counter may be used at all
};
extern HookClock g_hook_clock;

// At the library's load, after the test clock skew is known.
void hook_clock_init() noexcept;
// In a fork's child: a new baseline (the parent may have been beginning a segment); the counter's
// soundness is the parent's.
void hook_clock_after_fork() noexcept;
// Past a segment's end, or before the first: CLOCK_MONOTONIC, and a new segment when due.
uint64_t hook_clock_slow(uint64_t tsc) noexcept;
// Begins the next segment (about 150 ns), unless another thread is at it.
void hook_clock_advance() noexcept;

// After a call is recorded, off its timed path: begins the next segment when it is due, so the
// readings inside calls almost never pay for it (a segment may be read one length past its due
// time before a reading must begin it itself).
[[gnu::always_inline]] inline void hook_clock_maintain(uint64_t end_ns) noexcept {
  if (end_ns >= g_hook_clock.due_ns.load(std::memory_order_relaxed)) [[unlikely]]
    hook_clock_advance();
}

// A segment's line at `tsc`. Signed: the counter read may come from just before the segment another
// thread began.
[[gnu::always_inline]] inline uint64_t segment_ns(uint64_t tsc, uint64_t tsc0, uint64_t ns0,
                                                  uint64_t mult) noexcept {
  const __int128 delta = static_cast<__int128>(static_cast<int64_t>(tsc - tsc0)) * mult;
  return ns0 + static_cast<uint64_t>(static_cast<int64_t>(delta >> 32));
}

// The reading for `tsc` from the current segment, if that segment is complete and covers it.
[[gnu::always_inline]] inline bool hook_clock_read(uint64_t tsc, uint64_t& ns) noexcept {
  const uint32_t seq = g_hook_clock.seq.load(std::memory_order_acquire);
  const uint64_t tsc0 = g_hook_clock.tsc0.load(std::memory_order_relaxed);
  const uint64_t ns0 = g_hook_clock.ns0.load(std::memory_order_relaxed);
  const uint64_t mult = g_hook_clock.mult.load(std::memory_order_relaxed);
  const uint64_t end_tsc = g_hook_clock.end_tsc.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if ((seq & 1) || tsc >= end_tsc || g_hook_clock.seq.load(std::memory_order_relaxed) != seq)
    return false;
  ns = segment_ns(tsc, tsc0, ns0, mult);
  return true;
}

[[gnu::always_inline]] inline uint64_t hook_now_ns() noexcept {
#if defined(__x86_64__)
  if (g_hook_clock.counter) [[likely]] {
    const uint64_t tsc = __rdtsc();
    uint64_t ns;
    if (hook_clock_read(tsc, ns)) [[likely]]
      return ns;
    return hook_clock_slow(tsc);
  }
#endif
  return now_ns();
}

}  // namespace prof::interpose
