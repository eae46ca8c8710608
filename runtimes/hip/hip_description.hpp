// HIP as prof's runtime-neutral core names it: labels, file names, the calls that create streams.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kHipStreamCreators[] = {ApiId::hipStreamCreate, ApiId::hipStreamCreateWithFlags,
                                               ApiId::hipStreamCreateWithPriority};

inline constexpr MemoryCall kHipMemoryCalls[] = {{ApiId::hipMalloc, MemoryRole::kAllocDevice},
                                                 {ApiId::hipFree, MemoryRole::kFree},
                                                 {ApiId::hipHostMalloc, MemoryRole::kAllocHost},
                                                 {ApiId::hipHostFree, MemoryRole::kFree},
                                                 {ApiId::hipMallocManaged, MemoryRole::kAllocManaged}};

// File names are hipprof's: hip-prof-<pid>.db, <base>.hiptrace.csv.
inline constexpr RuntimeDescription kHipDescription{
    RuntimeId::kHip, "hip", "HIP API", "Stream", "Device", "hiptrace", kHipStreamCreators, {}, kHipMemoryCalls};

}  // namespace prof
