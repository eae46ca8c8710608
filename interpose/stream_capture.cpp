#include "interpose/stream_capture.hpp"

#include <climits>

#include "interpose/real_functions.hpp"

namespace prof::interpose {

std::atomic<int> g_stream_captures{0};

namespace {

// The count after an end it cannot explain: never zero again, so every runtime is asked.
constexpr int kCountLost = INT_MAX / 2;

enum : int { kUnknown = 0, kTracked = 1, kUntracked = 2 };
std::atomic<int> g_tracked[kRuntimeCount];

}  // namespace

void stream_capture_begin() noexcept { g_stream_captures.fetch_add(1, std::memory_order_seq_cst); }

void stream_capture_begin_failed() noexcept {
  g_stream_captures.fetch_sub(1, std::memory_order_acq_rel);
}

void stream_capture_ended() noexcept {
  int n = g_stream_captures.load(std::memory_order_relaxed);
  do {
    if (n <= 0) {
      g_stream_captures.store(kCountLost, std::memory_order_relaxed);
      return;
    }
  } while (!g_stream_captures.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel,
                                                    std::memory_order_relaxed));
}

bool stream_capture_tracked(const TimingAdapter& rt) noexcept {
  std::atomic<int>& state = g_tracked[static_cast<size_t>(rt.runtime)];
  int s = state.load(std::memory_order_relaxed);
  if (s != kUnknown) [[likely]]
    return s == kTracked;
  // Once per runtime, on the first timed call (the runtime is loaded by then: the hook called it).
  // Two threads may both look; they reach the same answer.
  bool tracked = rt.capture_hooked;
  for (const char* const* name = rt.unhooked_exports; tracked && name && *name; ++name)
    if (find_real_symbol(*name) != nullptr) tracked = false;
  state.store(tracked ? kTracked : kUntracked, std::memory_order_relaxed);
  return tracked;
}

}  // namespace prof::interpose
