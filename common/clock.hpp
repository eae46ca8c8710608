// The one clock of prof. Everything recorded on the host (API begin/end, converted device times)
// is nanoseconds of CLOCK_MONOTONIC, so that the preload library, the simulated device and the
// collector agree without translation. Units are converted only where output is written.
#pragma once
#include <cstdint>
#include <ctime>

namespace prof {

// Test only: added to every reading, as if this process ran on a host whose clock is that far
// ahead. The preload library sets it from PROF_TEST_CLOCK_SKEW=<rank>:<ns>
// (interpose/lifecycle.cpp) so the MPI clock alignment can be tested on one host; 0 everywhere
// else.
inline int64_t g_test_clock_skew_ns = 0;

inline uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec) +
         static_cast<uint64_t>(g_test_clock_skew_ns);
}

}  // namespace prof
