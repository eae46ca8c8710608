// A program that calls two runtimes, HIP and MUSA, on prof's simulated devices: on each, an upload,
// a kernel launched by address and a download on a stream of its own, then a blocking copy. prof
// should keep one database and one timeline holding both. Prints `PID`, then
// `EXPECT hip_calls=N musa_calls=N kernels=N copies=N` and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/two_runtimes
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtimes/hip/hip_runtime_decls.hpp"
#include "runtimes/musa/musa_runtime_decls.hpp"

namespace {

long g_hip_calls = 0, g_musa_calls = 0, g_kernels = 0, g_copies = 0;

bool check(int status, const char* what, long& counter) {
  ++counter;
  if (status != 0) std::printf("FAILED %s: %d\n", what, status);
  return status == 0;
}
#define HIP(expr) check(static_cast<int>(expr), #expr, g_hip_calls)
#define MUSA(expr) check(static_cast<int>(expr), #expr, g_musa_calls)

}  // namespace

// Kernel stand-ins: host functions whose addresses are the kernels' handles (named from the ELF).
extern "C" __attribute__((noinline, used)) void hip_double(float* x, int n) {
  (void)x, (void)n;
  __asm__ volatile("" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void musa_triple(float* x, int n) {
  (void)x, (void)n;
  __asm__ volatile("nop" ::: "memory");
}

int main() {
  constexpr int kCount = 1 << 16;
  constexpr size_t kBytes = kCount * sizeof(float);
  std::vector<float> in(kCount, 1.0f), out(kCount, 0.0f);
  bool ok = true;

  void *hip_buffer = nullptr, *musa_buffer = nullptr;
  hipStream_t hip_stream = nullptr;
  musaStream_t musa_stream = nullptr;
  ok &= HIP(hipSetDevice(0));
  ok &= MUSA(musaSetDevice(0));
  ok &= HIP(hipMalloc(&hip_buffer, kBytes));
  ok &= MUSA(musaMalloc(&musa_buffer, kBytes));
  ok &= HIP(hipStreamCreate(&hip_stream));
  ok &= MUSA(musaStreamCreate(&musa_stream));

  const dim3 grid{kCount / 256, 1, 1}, block{256, 1, 1};
  int n = kCount;
  void* hip_args[] = {&hip_buffer, &n};
  void* musa_args[] = {&musa_buffer, &n};
  ok &= HIP(hipMemcpyAsync(hip_buffer, in.data(), kBytes, hipMemcpyHostToDevice, hip_stream));
  ok &= MUSA(musaMemcpyAsync(musa_buffer, in.data(), kBytes, musaMemcpyHostToDevice, musa_stream));
  ok &= HIP(hipLaunchKernel(reinterpret_cast<const void*>(hip_double), grid, block, hip_args, 0,
                            hip_stream));
  ok &= MUSA(musaLaunchKernel(reinterpret_cast<const void*>(musa_triple), grid, block, musa_args, 0,
                              musa_stream));
  ok &= HIP(hipMemcpyAsync(out.data(), hip_buffer, kBytes, hipMemcpyDeviceToHost, hip_stream));
  ok &= MUSA(musaMemcpyAsync(out.data(), musa_buffer, kBytes, musaMemcpyDeviceToHost, musa_stream));
  ok &= HIP(hipStreamSynchronize(hip_stream));
  ok &= MUSA(musaStreamSynchronize(musa_stream));
  g_kernels += 2;
  g_copies += 4;
  ok &= HIP(hipMemcpy(out.data(), hip_buffer, kBytes, hipMemcpyDeviceToHost));
  ok &= MUSA(musaMemcpy(out.data(), musa_buffer, kBytes, musaMemcpyDeviceToHost));
  g_copies += 2;
  std::printf("round trips %s\n",
              std::memcmp(in.data(), out.data(), kBytes) == 0 ? "match" : "DIFFER");

  ok &= HIP(hipStreamDestroy(hip_stream));
  ok &= MUSA(musaStreamDestroy(musa_stream));
  ok &= HIP(hipFree(hip_buffer));
  ok &= MUSA(musaFree(musa_buffer));

  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT hip_calls=%ld musa_calls=%ld kernels=%ld copies=%ld\n", g_hip_calls,
              g_musa_calls, g_kernels, g_copies);
  std::printf("END\n");
  return ok ? 0 : 1;
}
