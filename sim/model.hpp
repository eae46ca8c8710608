// The simulated device's timing model: every modelled duration comes from these constants and
// functions, so the docs (docs/sim.md), the worker and the tests agree on one formula.
// All durations are integer nanoseconds of the host CLOCK_MONOTONIC (prof::now_ns); divisions
// floor.
#pragma once
#include <cstdint>

namespace prof::sim {

inline constexpr uint64_t kKernelLaunchNs = 5000;         // fixed cost of any kernel
inline constexpr uint64_t kKernelThreadsPerNs = 4;        // 0.25 ns per launched thread
inline constexpr uint64_t kCopyLaunchNs = 2000;           // fixed cost of any copy
inline constexpr uint64_t kHostDeviceBytesPerNs = 12;     // H2D and D2H: 12 GB/s
inline constexpr uint64_t kDeviceDeviceBytesPerNs = 400;  // D2D: 400 GB/s
inline constexpr uint64_t kHostHostBytesPerNs = 20;       // H2H: 20 GB/s
inline constexpr uint64_t kPeerBytesPerNs = 50;           // P2P: 50 GB/s
inline constexpr uint64_t kMemsetLaunchNs = 1000;         // fixed cost of any memset
inline constexpr uint64_t kMemsetBytesPerNs = 800;        // memset: 800 GB/s

// Waiting for a modelled end: sleep until this long before it, then spin (see stream.cpp).
inline constexpr uint64_t kSpinWindowNs = 150000;
// A blocking API spins this long past the expected completion before it falls back to a condvar.
inline constexpr uint64_t kWaiterSpinSlackNs = 200000;
// A blocking copy/memset whose calling thread finishes more than this after the modelled end
// ends when it finished (see settle_blocking_end in scheduler.cpp).
inline constexpr uint64_t kBlockingSettleSlackNs = 100;
// An idle stream's worker checks for new work at most this far apart (it is not woken by submits).
inline constexpr long kWorkerMaxPollUs = 1000;
// After this long without work it stops polling, and the next submit wakes it (scheduler.cpp).
inline constexpr long kWorkerSleepAfterUs = 50000;

enum class CopyDirection : uint8_t { kH2D, kD2H, kD2D, kH2H, kP2P };

inline const char* direction_name(CopyDirection d) noexcept {
  switch (d) {
    case CopyDirection::kH2D: return "H2D";
    case CopyDirection::kD2H: return "D2H";
    case CopyDirection::kD2D: return "D2D";
    case CopyDirection::kH2H: return "H2H";
    case CopyDirection::kP2P: return "P2P";
  }
  return "H2H";
}

inline uint64_t bytes_per_ns(CopyDirection d) noexcept {
  switch (d) {
    case CopyDirection::kH2D:
    case CopyDirection::kD2H: return kHostDeviceBytesPerNs;
    case CopyDirection::kD2D: return kDeviceDeviceBytesPerNs;
    case CopyDirection::kH2H: return kHostHostBytesPerNs;
    case CopyDirection::kP2P: return kPeerBytesPerNs;
  }
  return kHostHostBytesPerNs;
}

// threads = grid.x*grid.y*grid.z*block.x*block.y*block.z, computed in 128 bits by the caller's
// helper so that huge grids cannot wrap; the result saturates at UINT64_MAX / 2.
inline uint64_t kernel_duration_ns(unsigned __int128 threads) noexcept {
  unsigned __int128 ns = kKernelLaunchNs + threads / kKernelThreadsPerNs;
  const unsigned __int128 cap = UINT64_MAX / 2;
  return static_cast<uint64_t>(ns > cap ? cap : ns);
}

inline uint64_t copy_duration_ns(uint64_t bytes, CopyDirection d) noexcept {
  return kCopyLaunchNs + bytes / bytes_per_ns(d);
}

inline uint64_t memset_duration_ns(uint64_t bytes) noexcept {
  return kMemsetLaunchNs + bytes / kMemsetBytesPerNs;
}

}  // namespace prof::sim
