// A program that calls HIP and ACL in one process on prof's simulated devices: on each, an upload,
// work (a HIP kernel launched by address; an ACL operator) and a download on a stream of its own.
// prof should keep one database and one timeline holding both. Prints `PID`, then
// `EXPECT hip_calls=N acl_calls=N kernels=N copies=N` and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/hip_acl
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtimes/acl/acl_runtime_decls.hpp"
#include "runtimes/hip/hip_runtime_decls.hpp"

namespace {
long g_hip_calls = 0, g_acl_calls = 0;
bool check(int status, const char* what, long& counter) {
  ++counter;
  if (status != 0) std::printf("FAILED %s: %d\n", what, status);
  return status == 0;
}
#define HIP(expr) check(static_cast<int>(expr), #expr, g_hip_calls)
#define ACL(expr) check(static_cast<int>(expr), #expr, g_acl_calls)
}  // namespace

extern "C" __attribute__((noinline, used)) void hip_scale(float* x, int n) {
  (void)x, (void)n;
  __asm__ volatile("" ::: "memory");
}

int main() {
  constexpr int kCount = 1 << 16;
  constexpr size_t kBytes = kCount * sizeof(float);
  std::vector<float> in(kCount, 1.0f), out(kCount, 0.0f);
  bool ok = true;
  void *hip_buffer = nullptr, *npu_buffer = nullptr;
  hipStream_t hip_stream = nullptr;
  aclrtStream npu_stream = nullptr;
  ok &= HIP(hipSetDevice(0));
  ok &= ACL(aclInit(nullptr));
  ok &= ACL(aclrtSetDevice(0));
  ok &= HIP(hipMalloc(&hip_buffer, kBytes));
  ok &= ACL(aclrtMalloc(&npu_buffer, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ok &= HIP(hipStreamCreate(&hip_stream));
  ok &= ACL(aclrtCreateStream(&npu_stream));
  ok &= HIP(hipMemcpyAsync(hip_buffer, in.data(), kBytes, hipMemcpyHostToDevice, hip_stream));
  ok &= ACL(aclrtMemcpyAsync(npu_buffer, kBytes, in.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE,
                             npu_stream));
  int n = kCount;
  void* args[] = {&hip_buffer, &n};
  ok &= HIP(hipLaunchKernel(reinterpret_cast<const void*>(hip_scale), dim3{kCount / 256, 1, 1},
                            dim3{256, 1, 1}, args, 0, hip_stream));
  aclDataBuffer* buffer = aclCreateDataBuffer(npu_buffer, kBytes);
  ++g_acl_calls;
  aclDataBuffer* io[1] = {buffer};
  ok &= ACL(aclopExecuteV2("Relu", 1, nullptr, io, 1, nullptr, io, nullptr, npu_stream));
  ok &= HIP(hipMemcpyAsync(out.data(), hip_buffer, kBytes, hipMemcpyDeviceToHost, hip_stream));
  ok &= ACL(aclrtMemcpyAsync(out.data(), kBytes, npu_buffer, kBytes, ACL_MEMCPY_DEVICE_TO_HOST,
                             npu_stream));
  ok &= HIP(hipStreamSynchronize(hip_stream));
  ok &= ACL(aclrtSynchronizeStream(npu_stream));
  std::printf("round trips %s\n",
              ok && std::memcmp(in.data(), out.data(), kBytes) == 0 ? "match" : "DIFFER");
  ok &= ACL(aclDestroyDataBuffer(buffer));
  ok &= HIP(hipStreamDestroy(hip_stream));
  ok &= ACL(aclrtDestroyStream(npu_stream));
  ok &= HIP(hipFree(hip_buffer));
  ok &= ACL(aclrtFree(npu_buffer));
  ok &= ACL(aclFinalize());
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT hip_calls=%ld acl_calls=%ld kernels=2 copies=4\n", g_hip_calls, g_acl_calls);
  std::printf("END\n");
  return ok ? 0 : 1;
}
