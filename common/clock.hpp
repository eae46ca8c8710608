// The one clock of prof. Everything recorded on the host (API begin/end, converted device times)
// is nanoseconds of CLOCK_MONOTONIC, so that the preload library, the simulated device and the
// collector agree without translation. Units are converted only where output is written.
#pragma once
#include <cstdint>
#include <ctime>

namespace prof {

inline uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace prof
