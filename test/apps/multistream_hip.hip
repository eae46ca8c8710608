// multistream.cpp's sibling built by hipcc: real __global__ kernels launched with <<<>>>.
// Usage: multistream_hip [elements=1024] [iterations=2]
//
// hipcc adds HIP calls the source does not spell out, and prof records them too, so the EXPECT
// line counts them: each <<<>>> launch is __hipPushCallConfiguration at the call site, then
// __hipPopCallConfiguration and hipLaunchKernel in the host stub; the module constructor calls
// __hipRegisterFatBinary once and __hipRegisterFunction once per kernel, and its atexit handler
// calls __hipUnregisterFatBinary after main returns.
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hip_calls.hpp"

template <typename T>
__global__ void scale(T* out, const T* in, T factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}

__global__ void blur_shared(float* out, const float* in, int n) {
  extern __shared__ float tile[];  // blockDim.x + 2 floats: the block's elements and a halo each side
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x + 1;
  tile[t] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[t + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f;
}

namespace {

constexpr int kStreams = 2;
constexpr unsigned kBlock = 256;
constexpr long kKernelsRegistered = 2;           // scale<float>, blur_shared
constexpr long kCallsPerLaunch = 3;              // push, pop, hipLaunchKernel
constexpr long kModuleCalls = 2 + kKernelsRegistered;  // register/unregister fat binary + functions

int parse(int argc, char** argv, int index, int fallback) {
  return argc > index ? std::atoi(argv[index]) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = parse(argc, argv, 1, 1024);
  const int iterations = parse(argc, argv, 2, 2);
  if (n < 3 || iterations < 1) {
    std::fprintf(stderr, "usage: multistream_hip [elements>=3] [iterations>=1]\n");
    return 2;
  }
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  long kernels = 0;
  long copies = 0;  // copies and memsets

  int device_count = 0;
  PROF_HIP(hipGetDeviceCount(&device_count));
  PROF_HIP(hipSetDevice(0));
  std::printf("devices: %d, using device 0\n", device_count);

  hipStream_t streams[kStreams];
  PROF_HIP(hipStreamCreate(&streams[0]));
  PROF_HIP(hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking));
  hipEvent_t start, stop, done[kStreams];
  PROF_HIP(hipEventCreate(&start));
  PROF_HIP(hipEventCreate(&stop));
  for (auto& event : done) PROF_HIP(hipEventCreateWithFlags(&event, hipEventDisableTiming));

  float* host_in = nullptr;
  float* host_out = nullptr;
  PROF_HIP(hipHostMalloc(reinterpret_cast<void**>(&host_in), bytes * kStreams, hipHostMallocDefault));
  PROF_HIP(hipHostMalloc(reinterpret_cast<void**>(&host_out), bytes * kStreams, hipHostMallocDefault));
  float* device_in[kStreams];
  float* device_out[kStreams];
  float* device_blur[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_in[s]), bytes));
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_out[s]), bytes));
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_blur[s]), bytes));
  }
  for (int i = 0; i < n * kStreams; ++i) host_in[i] = static_cast<float>(i % 97);

  const dim3 grid((static_cast<unsigned>(n) + kBlock - 1) / kBlock);
  const dim3 block(kBlock);
  const size_t halo_bytes = sizeof(float) * (kBlock + 2);
  PROF_HIP(hipEventRecord(start, streams[0]));
  for (int it = 0; it < iterations; ++it) {
    for (int s = 0; s < kStreams; ++s) {
      hipStream_t stream = streams[s];
      PROF_HIP(hipMemcpyAsync(device_in[s], host_in + s * n, bytes, hipMemcpyHostToDevice, stream));
      PROF_HIP(hipMemsetAsync(device_blur[s], 0, bytes, stream));
      copies += 2;
      scale<float><<<grid, block, 0, stream>>>(device_out[s], device_in[s], 2.0f + s, n);
      blur_shared<<<grid, block, halo_bytes, stream>>>(device_blur[s], device_out[s], n);
      samples::g_api_calls += 2 * kCallsPerLaunch;
      kernels += 2;
      PROF_HIP(hipMemcpyAsync(host_out + s * n, device_in[s], bytes, hipMemcpyDeviceToHost, stream));
      copies += 1;
      PROF_HIP(hipEventRecord(done[s], stream));
    }
    PROF_HIP(hipStreamWaitEvent(streams[0], done[1], 0));
    PROF_HIP(hipGetLastError());
  }
  PROF_HIP(hipEventRecord(stop, streams[0]));
  PROF_HIP(hipEventSynchronize(stop));
  float elapsed_ms = 0.0f;
  PROF_HIP(hipEventElapsedTime(&elapsed_ms, start, stop));
  PROF_HIP(hipStreamSynchronize(streams[1]));
  PROF_HIP(hipDeviceSynchronize());
  const hipError_t query = PROF_HIP_RESULT(hipStreamQuery(streams[1]));
  std::printf("timing: %d iterations on %d streams took %.3f ms\n", iterations, kStreams, elapsed_ms);

  int mismatches = 0;
  for (int i = 0; i < n * kStreams; ++i) mismatches += host_out[i] != host_in[i];
  std::vector<float> check(n);
  PROF_HIP(hipMemcpy(check.data(), device_in[1], bytes, hipMemcpyDeviceToHost));
  copies += 1;
  for (int i = 0; i < n; ++i) mismatches += check[i] != host_in[n + i];
  std::printf("round trip: %d elements x %d streams, %d mismatches, stream query %s\n", n, kStreams, mismatches,
              query == hipSuccess ? "idle" : "busy");

  for (int s = 0; s < kStreams; ++s) {
    PROF_HIP(hipFree(device_in[s]));
    PROF_HIP(hipFree(device_out[s]));
    PROF_HIP(hipFree(device_blur[s]));
  }
  PROF_HIP(hipHostFree(host_in));
  PROF_HIP(hipHostFree(host_out));
  for (auto event : done) PROF_HIP(hipEventDestroy(event));
  PROF_HIP(hipEventDestroy(start));
  PROF_HIP(hipEventDestroy(stop));
  for (auto stream : streams) PROF_HIP(hipStreamDestroy(stream));

  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=%ld\n", samples::g_api_calls + kModuleCalls, kernels, copies);
  return mismatches == 0 ? 0 : 1;
}
