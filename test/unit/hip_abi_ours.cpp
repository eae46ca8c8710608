// prof's own HIP declarations, as values and layouts the real-header side can compare with.
#include <cstddef>

#include "interpose/hip_abi.hpp"
#include "test/unit/hip_abi_values.hpp"

namespace prof::test {

const AbiFacts kOurFacts = {
    {hipSuccess, hipErrorInvalidValue, hipErrorOutOfMemory, hipErrorNotInitialized, hipErrorInvalidConfiguration,
     hipErrorInvalidPitchValue, hipErrorInvalidDevicePointer, hipErrorInvalidMemcpyDirection,
     hipErrorMissingConfiguration, hipErrorInvalidDeviceFunction, hipErrorNoDevice, hipErrorInvalidDevice,
     hipErrorInvalidImage, hipErrorInvalidContext, hipErrorFileNotFound, hipErrorInvalidHandle, hipErrorNotFound,
     hipErrorNotReady, hipErrorNotSupported, hipErrorStreamCaptureUnsupported, hipErrorStreamCaptureInvalidated,
     hipErrorStreamCaptureImplicit, hipErrorUnknown},
    {hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice, hipMemcpyDefault},
    {hipStreamDefault, hipStreamNonBlocking, hipEventDefault, hipEventBlockingSync, hipEventDisableTiming,
     hipEventInterprocess, hipStreamCaptureStatusNone, hipStreamCaptureStatusActive,
     hipStreamCaptureStatusInvalidated},
    {sizeof(hipDeviceProp_t), offsetof(hipDeviceProp_t, totalGlobalMem), offsetof(hipDeviceProp_t, warpSize),
     offsetof(hipDeviceProp_t, maxThreadsPerBlock), offsetof(hipDeviceProp_t, multiProcessorCount),
     offsetof(hipDeviceProp_t, arch), offsetof(hipDeviceProp_t, concurrentKernels),
     offsetof(hipDeviceProp_t, gcnArchName), sizeof(dim3), sizeof(hipMemcpyKind), sizeof(hipError_t)},
};

}  // namespace prof::test
