// HIP's per-thread last error (HIP 5.2: every call stores its own return value, hipSuccess
// included) and the error names.
#include "sim/last_error.hpp"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

thread_local LastError<hipError_t, hipSuccess, hipErrorNotReady, LastErrorRule::kEveryReturn>
    last_error;

const char* error_name(hipError_t e) noexcept {
  switch (e) {
#define PROF_SIM_ERROR(name) \
  case name: return #name;
    PROF_SIM_ERROR(hipSuccess)
    PROF_SIM_ERROR(hipErrorInvalidValue)
    PROF_SIM_ERROR(hipErrorOutOfMemory)
    PROF_SIM_ERROR(hipErrorNotInitialized)
    PROF_SIM_ERROR(hipErrorInvalidConfiguration)
    PROF_SIM_ERROR(hipErrorInvalidPitchValue)
    PROF_SIM_ERROR(hipErrorInvalidSymbol)
    PROF_SIM_ERROR(hipErrorInvalidDevicePointer)
    PROF_SIM_ERROR(hipErrorInvalidMemcpyDirection)
    PROF_SIM_ERROR(hipErrorMissingConfiguration)
    PROF_SIM_ERROR(hipErrorInvalidDeviceFunction)
    PROF_SIM_ERROR(hipErrorNoDevice)
    PROF_SIM_ERROR(hipErrorInvalidDevice)
    PROF_SIM_ERROR(hipErrorInvalidImage)
    PROF_SIM_ERROR(hipErrorInvalidContext)
    PROF_SIM_ERROR(hipErrorNotMapped)
    PROF_SIM_ERROR(hipErrorUnsupportedLimit)
    PROF_SIM_ERROR(hipErrorPeerAccessUnsupported)
    PROF_SIM_ERROR(hipErrorInvalidKernelFile)
    PROF_SIM_ERROR(hipErrorFileNotFound)
    PROF_SIM_ERROR(hipErrorSharedObjectSymbolNotFound)
    PROF_SIM_ERROR(hipErrorInvalidHandle)
    PROF_SIM_ERROR(hipErrorIllegalState)
    PROF_SIM_ERROR(hipErrorNotFound)
    PROF_SIM_ERROR(hipErrorNotReady)
    PROF_SIM_ERROR(hipErrorPeerAccessAlreadyEnabled)
    PROF_SIM_ERROR(hipErrorPeerAccessNotEnabled)
    PROF_SIM_ERROR(hipErrorHostMemoryAlreadyRegistered)
    PROF_SIM_ERROR(hipErrorHostMemoryNotRegistered)
    PROF_SIM_ERROR(hipErrorNotSupported)
    PROF_SIM_ERROR(hipErrorStreamCaptureUnsupported)
    PROF_SIM_ERROR(hipErrorStreamCaptureInvalidated)
    PROF_SIM_ERROR(hipErrorStreamCaptureMerge)
    PROF_SIM_ERROR(hipErrorStreamCaptureUnmatched)
    PROF_SIM_ERROR(hipErrorStreamCaptureIsolation)
    PROF_SIM_ERROR(hipErrorStreamCaptureImplicit)
    PROF_SIM_ERROR(hipErrorCapturedEvent)
    PROF_SIM_ERROR(hipErrorUnknown)
#undef PROF_SIM_ERROR
  }
  return "hipErrorUnknown";
}

}  // namespace

hipError_t finish(hipError_t ret) noexcept { return last_error.note(ret); }

}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipGetLastError(void) { return last_error.take(); }

hipError_t hipPeekAtLastError(void) { return finish(last_error.peek()); }

// Like hipamd 5.2, both return the enum's name and neither touches the last error.
const char* hipGetErrorString(hipError_t hipError) { return error_name(hipError); }

const char* hipGetErrorName(hipError_t hip_error) { return error_name(hip_error); }
