// ACL as prof's runtime-neutral core names it: labels, file names, the calls that create streams.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kAclStreamCreators[] = {ApiId::aclrtCreateStream,
                                               ApiId::aclrtCreateStreamWithConfig};

inline constexpr MemoryCall kAclMemoryCalls[] = {{ApiId::aclrtMalloc, MemoryRole::kAllocDevice},
                                                 {ApiId::aclrtFree, MemoryRole::kFree},
                                                 {ApiId::aclrtMallocHost, MemoryRole::kAllocHost},
                                                 {ApiId::aclrtFreeHost, MemoryRole::kFree}};

inline constexpr ApiId kAclWaitCalls[] = {
    ApiId::aclrtSynchronizeDevice, ApiId::aclrtSynchronizeStream, ApiId::aclrtSynchronizeEvent};
inline constexpr ApiId kAclStatusQueries[] = {ApiId::aclrtStreamQuery, ApiId::aclrtQueryEventStatus,
                                              ApiId::aclrtGetLastError,
                                              ApiId::aclrtPeekAtLastError};

// acl-prof-<pid>.db, <base>.acltrace.csv; Ascend's words: streams on NPUs.
inline constexpr RuntimeDescription kAclDescription{RuntimeId::kAcl,
                                                    "acl",
                                                    "ACL API",
                                                    "Stream",
                                                    "NPU",
                                                    "acltrace",
                                                    kAclStreamCreators,
                                                    {},
                                                    kAclMemoryCalls,
                                                    {},
                                                    kHostCopyArgNames,
                                                    kAclWaitCalls,
                                                    kAclStatusQueries};

}  // namespace prof
