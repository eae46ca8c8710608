// HIP as prof's runtime-neutral core names it: labels, file names, the calls that create streams.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr ApiId kHipStreamCreators[] = {
    ApiId::hipStreamCreate, ApiId::hipStreamCreateWithFlags, ApiId::hipStreamCreateWithPriority,
    ApiId::hipExtStreamCreateWithCUMask};

// Every call of hip_api.def that allocates or releases memory (bytes = size, aux = pointer or
// handle).
inline constexpr MemoryCall kHipMemoryCalls[] = {
    {ApiId::hipMalloc, MemoryRole::kAllocDevice},
    {ApiId::hipFree, MemoryRole::kFree},
    {ApiId::hipHostMalloc, MemoryRole::kAllocHost},
    {ApiId::hipHostFree, MemoryRole::kFree},
    {ApiId::hipMallocManaged, MemoryRole::kAllocManaged},
    {ApiId::hipExtMallocWithFlags, MemoryRole::kAllocDevice},
    {ApiId::hipMallocPitch, MemoryRole::kAllocDevice},
    {ApiId::hipMemAllocPitch, MemoryRole::kAllocDevice},
    {ApiId::hipMalloc3D, MemoryRole::kAllocDevice},
    {ApiId::hipMallocAsync, MemoryRole::kAllocDevice},
    {ApiId::hipMallocFromPoolAsync, MemoryRole::kAllocDevice},
    {ApiId::hipFreeAsync, MemoryRole::kFree},
    {ApiId::hipMallocArray, MemoryRole::kAllocDevice},
    {ApiId::hipMalloc3DArray, MemoryRole::kAllocDevice},
    {ApiId::hipArrayCreate, MemoryRole::kAllocDevice},
    {ApiId::hipArray3DCreate, MemoryRole::kAllocDevice},
    {ApiId::hipFreeArray, MemoryRole::kFree},
    {ApiId::hipArrayDestroy, MemoryRole::kFree},
    {ApiId::hipMemCreate, MemoryRole::kAllocDevice},
    {ApiId::hipMemRelease, MemoryRole::kFree},
    {ApiId::hipMallocHost, MemoryRole::kAllocHost},
    {ApiId::hipMemAllocHost, MemoryRole::kAllocHost},
    {ApiId::hipHostAlloc, MemoryRole::kAllocHost},
    {ApiId::hipFreeHost, MemoryRole::kFree}};

inline constexpr ApiId kHipWaitCalls[] = {ApiId::hipDeviceSynchronize, ApiId::hipStreamSynchronize,
                                          ApiId::hipEventSynchronize, ApiId::hipCtxSynchronize,
                                          ApiId::hipStreamSynchronize_spt};
inline constexpr ApiId kHipStatusQueries[] = {ApiId::hipStreamQuery, ApiId::hipEventQuery,
                                              ApiId::hipGetLastError, ApiId::hipPeekAtLastError,
                                              ApiId::hipStreamQuery_spt};

// hipHostRegister(hostPtr, sizeBytes, flags): bytes = sizeBytes, aux = hostPtr;
// hipHostUnregister(hostPtr): aux = hostPtr.
inline constexpr PinCall kHipPinCalls[] = {{ApiId::hipHostRegister, PinRole::kRegister},
                                           {ApiId::hipHostUnregister, PinRole::kUnregister}};

// File names are hipprof's: hip-prof-<pid>.db, <base>.hiptrace.csv.
inline constexpr RuntimeDescription kHipDescription{
    RuntimeId::kHip,    "hip",       "HIP API",       "Stream", "Device",          "hiptrace",
    kHipStreamCreators, {},          kHipMemoryCalls, {},       kHostCopyArgNames, kHipWaitCalls,
    kHipStatusQueries,  kHipPinCalls};

}  // namespace prof
