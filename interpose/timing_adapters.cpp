#include "interpose/timing_adapter.hpp"
#include "runtimes/hip/hip_adapter.hpp"
#include "runtimes/musa/musa_adapter.hpp"
#include "runtimes/cnrt/cnrt_adapter.hpp"
#include "runtimes/acl/acl_adapter.hpp"
#include "runtimes/mpi/mpi_adapter.hpp"

namespace prof::interpose {

const TimingAdapter* const kTimingAdapters[kRuntimeCount] = {&kHipTiming, &kMusaTiming, &kCnrtTiming, &kAclTiming,
                                                                    &kMpiTiming};

}  // namespace prof::interpose
