// MUSA as prof's runtime-neutral core names it: labels, file names, the calls that create streams.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kMusaStreamCreators[] = {
    ApiId::musaStreamCreate, ApiId::musaStreamCreateWithFlags, ApiId::musaStreamCreateWithPriority};

// musaStreamLegacy, ((musaStream_t)0x1) as in CUDA: the legacy default stream, the null stream's
// twin.
inline constexpr uint64_t kMusaDefaultStreamAliases[] = {0x1};

inline constexpr MemoryCall kMusaMemoryCalls[] = {
    {ApiId::musaMalloc, MemoryRole::kAllocDevice},
    {ApiId::musaFree, MemoryRole::kFree},
    {ApiId::musaMallocHost, MemoryRole::kAllocHost},
    {ApiId::musaFreeHost, MemoryRole::kFree},
    {ApiId::musaHostAlloc, MemoryRole::kAllocHost},
    {ApiId::musaMallocManaged, MemoryRole::kAllocManaged},
    {ApiId::musaMallocAsync, MemoryRole::kAllocDevice},
    {ApiId::musaFreeAsync, MemoryRole::kFree}};

inline constexpr ApiId kMusaWaitCalls[] = {
    ApiId::musaDeviceSynchronize, ApiId::musaStreamSynchronize, ApiId::musaEventSynchronize};
inline constexpr ApiId kMusaStatusQueries[] = {ApiId::musaStreamQuery, ApiId::musaEventQuery,
                                               ApiId::musaGetLastError, ApiId::musaPeekAtLastError};

// musa-prof-<pid>.db, <base>.musatrace.csv: HIP's scheme with the runtime's name.
inline constexpr RuntimeDescription kMusaDescription{
    RuntimeId::kMusa,  "musa",      "MUSA API",          "Stream",
    "Device",          "musatrace", kMusaStreamCreators, kMusaDefaultStreamAliases,
    kMusaMemoryCalls,  {},          kHostCopyArgNames,   kMusaWaitCalls,
    kMusaStatusQueries};

}  // namespace prof
