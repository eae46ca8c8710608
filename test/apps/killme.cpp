// Makes a known number of HIP calls, then dies by SIGKILL: no exit handlers, no flush, so the
// calls prof records are only those the profiled process had committed when it died.
// Usage: killme [calls=1000]. Prints its expected count first and nothing after the calls.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "hip_calls.hpp"

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000;
  // One hipStreamCreate, then `calls` hipStreamQuery.
  std::printf("PID %ld\nEXPECT api_calls=%ld kernels=0 copies=0\n", static_cast<long>(getpid()),
              calls + 1);
  std::fflush(stdout);
  hipStream_t stream = nullptr;
  PROF_HIP(hipStreamCreate(&stream));
  for (long i = 0; i < calls; ++i) {
    const hipError_t result = PROF_HIP_RESULT(hipStreamQuery(stream));
    if (result != hipSuccess && result != hipErrorNotReady) return 1;
  }
  std::raise(SIGKILL);
  return 1;  // not reached
}
