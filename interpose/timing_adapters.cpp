#include "interpose/timing_adapter.hpp"
#include "interpose/adapters/hip_adapter.hpp"
#include "interpose/adapters/musa_adapter.hpp"
#include "interpose/adapters/cnrt_adapter.hpp"
#include "interpose/adapters/acl_adapter.hpp"
#include "interpose/adapters/mpi_adapter.hpp"

namespace prof::interpose {

namespace {
// The marker APIs (roctx, mstx) enqueue no device work: device timing never asks them anything.
constexpr TimingAdapter marker_timing(RuntimeId runtime) {
  return TimingAdapter{runtime,                  0,
                       -2,                       mpi_timing::none_void,
                       mpi_timing::none_one,     mpi_timing::none_void,
                       mpi_timing::none_one,     mpi_timing::none_two,
                       mpi_timing::none_one,     mpi_timing::none_one,
                       mpi_timing::none_elapsed, mpi_timing::none_capturing,
                       mpi_timing::none_device};
}
constexpr TimingAdapter kRoctxTiming = marker_timing(RuntimeId::kRoctx);
constexpr TimingAdapter kMstxTiming = marker_timing(RuntimeId::kMstx);
}  // namespace

const TimingAdapter* const kTimingAdapters[kRuntimeCount] = {&kHipTiming,  &kMusaTiming,  &kCnrtTiming, &kAclTiming,
                                                             &kMpiTiming,  &kRoctxTiming, &kMstxTiming};

}  // namespace prof::interpose
