// Built by Debian's hipcc: a program that uses what real programs use beyond launches and copies
// (device attributes, occupancy, a __device__ global through its symbol, peer queries). Before the
// simulated runtime exported every function, such a program stopped at start-up with "symbol
// lookup error: undefined symbol" under `prof --sim` (e2e:hip_coverage checks it runs to the end).
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <cstdio>

__device__ float d_bias[16];

__global__ void add_bias(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += d_bias[i % 16];
}

#define CHECK(call)                                                         \
  do {                                                                      \
    hipError_t e_ = (call);                                                 \
    if (e_ != hipSuccess) {                                                 \
      std::printf("FAILED %s: %d\n", #call, static_cast<int>(e_));          \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main() {
  std::printf("PID %d\n", static_cast<int>(getpid()));
  int value = 0, blocks = 0, peer = 0;
  CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_bias, 256, 0));
  CHECK(hipDeviceCanAccessPeer(&peer, 0, 1));
  std::printf("attribute ok %d, occupancy ok %d, peer %d\n", value > 0, blocks > 0, peer);
  float bias[16] = {};
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(d_bias), bias, sizeof bias));
  float* x = nullptr;
  CHECK(hipMalloc(&x, 1024 * sizeof(float)));
  add_bias<<<4, 256>>>(x, 1024);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  CHECK(hipFree(x));
  std::printf("END\n");
  return 0;
}
