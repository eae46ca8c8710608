// MUSA as prof's runtime-neutral core names it: labels, file names, the calls that create streams.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kMusaStreamCreators[] = {ApiId::musaStreamCreate, ApiId::musaStreamCreateWithFlags,
                                                ApiId::musaStreamCreateWithPriority};

// musa-prof-<pid>.db, <base>.musatrace.csv: HIP's scheme with the runtime's name.
inline constexpr RuntimeDescription kMusaDescription{
    RuntimeId::kMusa, "musa", "MUSA API", "Stream", "Device", "musatrace", kMusaStreamCreators};

}  // namespace prof
