#include "interpose/timing_adapter.hpp"
#include "runtimes/hip/hip_adapter.hpp"
#include "runtimes/musa/musa_adapter.hpp"

namespace prof::interpose {

const TimingAdapter* const kTimingAdapters[kRuntimeCount] = {&kHipTiming, &kMusaTiming};

}  // namespace prof::interpose
