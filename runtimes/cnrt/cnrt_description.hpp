// CNRT as prof's runtime-neutral core names it: labels, file names, the calls that create queues.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kCnrtStreamCreators[] = {ApiId::cnrtQueueCreate,
                                                ApiId::cnrtQueueCreateWithPriority};

// cnrtQueueLegacy, ((cnrtQueue_t)2): the legacy default queue, the null queue's twin. (The
// per-thread queue is 1, its own lane: the reverse of HIP's numbering.)
inline constexpr uint64_t kCnrtDefaultStreamAliases[] = {0x2};

inline constexpr MemoryCall kCnrtMemoryCalls[] = {
    {ApiId::cnrtMalloc, MemoryRole::kAllocDevice},
    {ApiId::cnrtFree, MemoryRole::kFree},
    {ApiId::cnrtHostMalloc, MemoryRole::kAllocHost},
    {ApiId::cnrtFreeHost, MemoryRole::kFree},
    {ApiId::cnrtMemAllocAsync, MemoryRole::kAllocDevice},
    {ApiId::cnrtMemFreeAsync, MemoryRole::kFree}};

// cnrtWaitNotifier blocks the host; cnrtQueueWaitNotifier only makes a queue wait.
inline constexpr ApiId kCnrtWaitCalls[] = {ApiId::cnrtSyncDevice, ApiId::cnrtQueueSync,
                                           ApiId::cnrtWaitNotifier};
inline constexpr ApiId kCnrtStatusQueries[] = {ApiId::cnrtQueueQuery, ApiId::cnrtQueryNotifier,
                                               ApiId::cnrtGetLastError, ApiId::cnrtPeekAtLastError};

// cnrt-prof-<pid>.db, <base>.cnrttrace.csv; Cambricon's words: queues on MLUs.
inline constexpr RuntimeDescription kCnrtDescription{RuntimeId::kCnrt,
                                                     "cnrt",
                                                     "CNRT API",
                                                     "Queue",
                                                     "MLU",
                                                     "cnrttrace",
                                                     kCnrtStreamCreators,
                                                     kCnrtDefaultStreamAliases,
                                                     kCnrtMemoryCalls,
                                                     {},
                                                     kHostCopyArgNames,
                                                     kCnrtWaitCalls,
                                                     kCnrtStatusQueries};

}  // namespace prof
