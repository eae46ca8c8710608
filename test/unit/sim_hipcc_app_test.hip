// Built by Debian's real hipcc and run against the simulated libamdhip64 (LD_LIBRARY_PATH):
// proves that hipcc's registration, <<<>>> lowering and versioned symbols resolve to the sim.
// Exits non-zero on the first failed check.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

__global__ void scale(float* data, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

#define EXPECT(cond)                                          \
  do {                                                        \
    if (!(cond)) {                                            \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                               \
    }                                                         \
  } while (0)

int main() {
  // The sim opens the truth file at the first completed op; start from an empty one.
  if (const char* truth = std::getenv("PROF_SIM_TRUTH")) std::remove(truth);
  hipDeviceProp_t prop;
  EXPECT(hipGetDeviceProperties(&prop, 0) == hipSuccess);
  EXPECT(std::strcmp(prop.name, "prof simulated HIP device") == 0);  // not the real runtime

  const int n = 1024;
  std::vector<float> host(n, 2.0f);
  float* device = nullptr;
  EXPECT(hipMalloc(&device, n * sizeof(float)) == hipSuccess);
  EXPECT(hipMemcpy(device, host.data(), n * sizeof(float), hipMemcpyHostToDevice) == hipSuccess);
  hipStream_t stream;
  hipEvent_t start, stop;
  EXPECT(hipStreamCreate(&stream) == hipSuccess);
  EXPECT(hipEventCreate(&start) == hipSuccess);
  EXPECT(hipEventCreate(&stop) == hipSuccess);
  EXPECT(hipEventRecord(start, stream) == hipSuccess);
  scale<<<dim3(4), dim3(256), 0, stream>>>(device, 3.0f, n);
  EXPECT(hipGetLastError() == hipSuccess);
  EXPECT(hipEventRecord(stop, stream) == hipSuccess);
  EXPECT(hipEventSynchronize(stop) == hipSuccess);
  float ms = 0;
  EXPECT(hipEventElapsedTime(&ms, start, stop) == hipSuccess);
  EXPECT(ms > 0.0f);
  EXPECT(hipMemcpy(host.data(), device, n * sizeof(float), hipMemcpyDeviceToHost) == hipSuccess);
  EXPECT(host[0] == 2.0f);  // device code is modelled, not executed
  EXPECT(hipStreamDestroy(stream) == hipSuccess);
  EXPECT(hipFree(device) == hipSuccess);

  // The kernel's truth line carries the name hipcc registered.
  if (const char* truth = std::getenv("PROF_SIM_TRUTH")) {
    std::ifstream in(truth);
    int kernels = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"kind\":\"kernel\"") != std::string::npos &&
          line.find("\"name\":\"_Z5scalePffi\"") != std::string::npos &&
          line.find("\"grid\":[4,1,1],\"block\":[256,1,1]") != std::string::npos) {
        ++kernels;
      }
    }
    EXPECT(kernels == 1);
  }
  std::printf("ok: kernel took %.6f ms on the simulated device\n", ms);
  return 0;
}
