// Shared by the sample programs: the HIP declarations (Debian's header when present, else prof's
// own table) and a macro that counts every HIP call the sample makes. The e2e tests compare
// prof's counts with the `EXPECT ...` line the samples print, so no HIP call may bypass PROF_HIP.
#pragma once
#if __has_include(<hip/hip_runtime_api.h>)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#else
#include "runtimes/hip/hip_runtime_decls.hpp"
#endif
#include <cstdio>
#include <cstdlib>

namespace samples {

inline long g_api_calls = 0;

// Failures print the numeric code only: hipGetErrorString would be one more (uncounted) call.
inline void check(hipError_t result, const char* what, int line) {
  if (result != hipSuccess) {
    std::fprintf(stderr, "line %d: %s failed with hipError_t %d\n", line, what,
                 static_cast<int>(result));
    std::exit(1);
  }
}

}  // namespace samples

// Calls a HIP function that must succeed, and counts it.
#define PROF_HIP(call) (++samples::g_api_calls, samples::check((call), #call, __LINE__))
// Calls a HIP function whose result the sample inspects itself, and counts it.
#define PROF_HIP_RESULT(call) (++samples::g_api_calls, (call))
