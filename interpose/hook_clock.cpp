#include "interpose/hook_clock.hpp"

#include <cpuid.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace prof::interpose {

HookClock g_hook_clock;

namespace {

constexpr uint64_t kFirstSegmentAfterNs = 10'000'000;  // the slope is measured over at least this
constexpr uint64_t kSegmentNs = 10'000'000;
constexpr uint64_t kTightPairCounts = 2000;  // counts around one clock_gettime with no interruption
constexpr int64_t kLargestSteerNs =
    20'000;  // beyond this the reading jumps (never seen with a sound counter)

uint64_t g_base_tsc = 0, g_base_ns = 0;  // the load's reading: the slope's baseline

// The kernel keeps CLOCK_MONOTONIC on the TSC only when it found it invariant and synchronized
// across CPUs; prof trusts the counter exactly when the kernel does.
bool counter_is_the_clock_source() noexcept {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 8)))
    return false;  // invariant TSC
  const int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                      O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[32] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  return n >= 3 && std::strncmp(text, "tsc", 3) == 0 && (text[3] == '\n' || text[3] == '\0');
#else
  return false;
#endif
}

// CLOCK_MONOTONIC and the counter at (nearly) the same moment: the counter halfway between two
// reads around clock_gettime, the tightest pair of three tries.
void read_pair(uint64_t& tsc, uint64_t& ns) noexcept {
#if defined(__x86_64__)
  uint64_t best = UINT64_MAX;
  // Three tries, and more while the best was interrupted (its midpoint is off by half the gap).
  for (int i = 0; i < 3 || (best > kTightPairCounts && i < 12); ++i) {
    const uint64_t a = __rdtsc();
    const uint64_t t = now_ns();
    const uint64_t b = __rdtsc();
    if (b - a < best) {
      best = b - a;
      tsc = a + (b - a) / 2;
      ns = t;
    }
  }
#else
  tsc = 0;
  ns = now_ns();
#endif
}

// Begins the segment that follows the current one (or the first). The caller holds the odd seq.
void start_segment() noexcept {
  uint64_t pair_tsc = 0, real_ns = 0;
  read_pair(pair_tsc, real_ns);
  const uint64_t tsc_span = pair_tsc - g_base_tsc;
  // Nanoseconds per count, from the load on: the longer the baseline, the better the slope.
  const uint64_t slope = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(real_ns - g_base_ns) << 32) / (tsc_span ? tsc_span : 1));
  const uint64_t segment_tsc = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(kSegmentNs) << 32) / (slope ? slope : 1));
  uint64_t start_ns = real_ns, mult = slope;
  if (g_hook_clock.end_tsc.load(std::memory_order_relaxed) != 0 && segment_tsc != 0) {
    // Where the current segment has got to: the next one starts there (no reading jumps) and
    // steers back onto the kernel's clock over its length.
    const uint64_t reached = segment_ns(pair_tsc, g_hook_clock.tsc0.load(std::memory_order_relaxed),
                                        g_hook_clock.ns0.load(std::memory_order_relaxed),
                                        g_hook_clock.mult.load(std::memory_order_relaxed));
    const int64_t behind = static_cast<int64_t>(real_ns - reached);
    if (behind > -kLargestSteerNs && behind < kLargestSteerNs) {
      start_ns = reached;
      mult =
          static_cast<uint64_t>((static_cast<__int128>(kSegmentNs + behind) << 32) / segment_tsc);
    }
  }
  g_hook_clock.tsc0.store(pair_tsc, std::memory_order_relaxed);
  g_hook_clock.ns0.store(start_ns, std::memory_order_relaxed);
  g_hook_clock.mult.store(mult, std::memory_order_relaxed);
  // Due after one length; read up to two (a program quiet for longer pays for it in a reading).
  g_hook_clock.end_tsc.store(pair_tsc + 2 * (segment_tsc ? segment_tsc : 1),
                             std::memory_order_relaxed);
  g_hook_clock.due_ns.store(start_ns + kSegmentNs, std::memory_order_relaxed);
}

// Back to "not calibrated": the kernel's clock until a baseline of kFirstSegmentAfterNs from now.
void new_baseline() noexcept {
  g_hook_clock.seq.store(0, std::memory_order_relaxed);
  g_hook_clock.end_tsc.store(0, std::memory_order_relaxed);
  g_hook_clock.due_ns.store(UINT64_MAX, std::memory_order_relaxed);
  if (!g_hook_clock.counter) return;
  read_pair(g_base_tsc, g_base_ns);
  g_hook_clock.due_ns.store(g_base_ns + kFirstSegmentAfterNs, std::memory_order_relaxed);
}

}  // namespace

void hook_clock_init() noexcept {
  const char* mode = std::getenv("PROF_HOOK_CLOCK");
  g_hook_clock.counter =
      !(mode && std::strcmp(mode, "clock_gettime") == 0) && counter_is_the_clock_source();
  new_baseline();
}

void hook_clock_after_fork() noexcept { new_baseline(); }

void hook_clock_advance() noexcept {
  uint32_t seq = g_hook_clock.seq.load(std::memory_order_relaxed);
  if ((seq & 1) ||
      !g_hook_clock.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acquire))
    return;
  std::atomic_thread_fence(std::memory_order_release);
  // (Re-checked under the seq: another thread may have begun it since this one looked.)
  if (now_ns() >= g_hook_clock.due_ns.load(std::memory_order_relaxed)) start_segment();
  g_hook_clock.seq.store(seq + 2, std::memory_order_release);
}

uint64_t hook_clock_slow(uint64_t tsc) noexcept {
  // Until the baseline is long enough for a good slope: the kernel's clock.
  if (g_hook_clock.end_tsc.load(std::memory_order_acquire) == 0) {
    const uint64_t now = now_ns();
    if (now - g_base_ns < kFirstSegmentAfterNs) return now;
  }
  // One thread begins the next segment (about 150 ns, once per segment); the others wait for it
  // rather than read the kernel's clock, so every reading comes from the same line. (A reading
  // that got here is past its segment's end, so past its due time too.)
  for (int tries = 0; tries < 4096; ++tries) {
    uint64_t ns = 0;
    if (hook_clock_read(tsc, ns)) return ns;
    hook_clock_advance();
#if defined(__x86_64__)
    _mm_pause();
#endif
  }
  return now_ns();  // the thread beginning a segment was preempted for long
}

}  // namespace prof::interpose
