// A library that reaches the HIP runtime only through its own dependencies, as a Python extension
// module or a plugin does: the rtld_local sample and a Python ctypes.CDLL load it with
// RTLD_LOCAL, so the runtime is in no global scope. It makes a fixed set of HIP calls, prints their
// results, and returns how many calls it made.
#include <cstring>
#include <vector>

#include "hip_calls.hpp"

namespace {
__attribute__((noinline, used)) void rtld_local_kernel() { __asm__ volatile("" ::: "memory"); }
}  // namespace

extern "C" __attribute__((visibility("default"))) long rtld_local_run(void) {
  samples::g_api_calls = 0;
  const size_t bytes = 1 << 16;
  std::vector<char> in(bytes, 7), out(bytes, 0);
  void* device = nullptr;
  hipStream_t stream = nullptr;
  PROF_HIP(hipSetDevice(0));
  PROF_HIP(hipMalloc(&device, bytes));
  PROF_HIP(hipStreamCreate(&stream));
  PROF_HIP(hipMemcpyAsync(device, in.data(), bytes, hipMemcpyHostToDevice, stream));
  PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&rtld_local_kernel), dim3{8, 1, 1},
                           dim3{64, 1, 1}, nullptr, 0, stream));
  PROF_HIP(hipMemcpyAsync(out.data(), device, bytes, hipMemcpyDeviceToHost, stream));
  PROF_HIP(hipStreamSynchronize(stream));
  std::printf("round trip %s\n",
              std::memcmp(in.data(), out.data(), bytes) == 0 ? "matches" : "DIFFERS");
  const hipError_t bad = PROF_HIP_RESULT(hipFree(reinterpret_cast<void*>(0x10)));
  const char* text = PROF_HIP_RESULT(hipGetErrorString(bad));
  std::printf("bad free: %d %s\n", static_cast<int>(bad), text != nullptr ? text : "(null)");
  PROF_HIP(hipStreamDestroy(stream));
  PROF_HIP(hipFree(device));
  std::fflush(stdout);
  return samples::g_api_calls;
}
