// MPI's adapter: what the generic hook shape (interpose/hook_shape.hpp) needs to know about MPI
// beyond its table. MPI has no device: no timing adapter functions, no device reset. Compiled
// into the preload library only.
#pragma once
#include "interpose/hook_support.hpp"
#include "interpose/real_functions.hpp"
#include "interpose/timing_adapter.hpp"
#include "runtimes/mpi/mpi_abi.hpp"

namespace prof::interpose {

// Bytes of `count` elements of `type` (MPI_Type_size, a local query: never communicates).
inline int64_t prof_mpi_bytes(int count, MPI_Datatype type) noexcept {
  auto type_size = real<ApiId::MPI_Type_size>();
  int size = 0;
  if (count <= 0 || !type_size || type_size(type, &size) != MPI_SUCCESS) return 0;
  return static_cast<int64_t>(count) * size;
}

// The size of `comm`, or 0 when it cannot be asked.
inline int64_t prof_mpi_comm_size(MPI_Comm comm) noexcept {
  auto comm_size = real<ApiId::MPI_Comm_size>();
  int size = 0;
  if (!comm_size || comm_size(comm, &size) != MPI_SUCCESS) return 0;
  return size;
}

// The bytes of a v-variant's counts: one count per rank of `comm`.
inline int64_t prof_mpi_bytes_v(const int counts[], MPI_Datatype type, MPI_Comm comm) noexcept {
  if (counts == nullptr) return 0;
  int64_t total = 0;
  const int64_t ranks = prof_mpi_comm_size(comm);
  for (int64_t r = 0; r < ranks; ++r) total += prof_mpi_bytes(counts[r], type);
  return total;
}

// After MPI_Init(_thread) succeeded / before MPI_Finalize: measure this rank's clock offset to
// rank 0 (interpose/mpi_clock.cpp).
void mpi_clock_exchange(const char* when) noexcept;

namespace mpi_timing {
inline int none_void(void**) { return TimingAdapter::kNoFunction; }
inline int none_one(void*) { return TimingAdapter::kNoFunction; }
inline int none_two(void*, void*) { return TimingAdapter::kNoFunction; }
inline int none_elapsed(float*, void*, void*) { return TimingAdapter::kNoFunction; }
inline int none_capturing(void*, bool* capturing) {
  *capturing = false;
  return TimingAdapter::kNoFunction;
}
inline int none_device(int) { return TimingAdapter::kNoFunction; }

// A runtime with no device work: every function answers "no such function"; nothing ever calls
// them (none of its rows has an activity). MPI's, and the marker APIs' (timing_adapters.cpp).
constexpr TimingAdapter no_device_timing(RuntimeId runtime, int success) {
  return TimingAdapter{runtime,      success,        -2,         none_void, none_one,
                       none_void,    none_one,       none_two,   none_one,  none_one,
                       none_elapsed, none_capturing, none_device};
}
}  // namespace mpi_timing

inline constexpr TimingAdapter kMpiTiming =
    mpi_timing::no_device_timing(RuntimeId::kMpi, MPI_SUCCESS);

struct MpiAdapter {
  using Status = int;
  using Stream = MPI_Comm;
  static constexpr RuntimeId kRuntime = RuntimeId::kMpi;
  static constexpr Status kSuccess = MPI_SUCCESS;
  static constexpr Status kNoLibrary = MPI_ERR_INTERN;
  // MPI resets no device: ids no MPI row has.
  static constexpr ApiId kDeviceReset = ApiId::hipDeviceReset;
  static constexpr ApiId kFinalize = ApiId::hipDeviceReset;
  static constexpr const TimingAdapter& kTiming = kMpiTiming;
};

}  // namespace prof::interpose

#define prof_mpi_args(peer, tag, comm) \
  on_args(ctx, {static_cast<int64_t>(peer), static_cast<int64_t>(tag), prof_mpi_comm_size(comm)})
#define prof_mpi_after_init(ret) \
  if ((ret) == MPI_SUCCESS) mpi_clock_exchange("init")
