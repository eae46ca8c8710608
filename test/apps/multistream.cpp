// A multiStream-style HIP sample in plain C++ (no hipcc): two streams, pinned host memory, async
// copies both ways, a template and a shared-memory kernel launched through hipLaunchKernel,
// events and a cross-stream wait. Usage: multistream [elements=1024] [iterations=2]
//
// The kernels are host functions standing in for device code: prof names a launch from the ELF
// symbol of the address passed to hipLaunchKernel, so they must keep their symbols (noinline,
// used, no stripping). The simulated runtime does not run kernels, so only copies are checked.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hip_calls.hpp"

template <typename T>
__attribute__((noinline, used)) void scale(T* out, const T* in, T factor, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * factor;
}
template void scale<float>(float*, const float*, float, int);

__attribute__((noinline, used)) void blur_shared(float* out, const float* in, int n) {
  for (int i = 1; i + 1 < n; ++i) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

namespace {

constexpr int kStreams = 2;
constexpr unsigned kBlock = 256;

struct Counts {
  long kernels = 0;
  long copies = 0;  // copies and memsets: what prof's copies table holds
};

int parse(int argc, char** argv, int index, int fallback) {
  return argc > index ? std::atoi(argv[index]) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = parse(argc, argv, 1, 1024);
  const int iterations = parse(argc, argv, 2, 2);
  if (n < 3 || iterations < 1) {
    std::fprintf(stderr, "usage: multistream [elements>=3] [iterations>=1]\n");
    return 2;
  }
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  Counts counts;

  int device_count = 0;
  PROF_HIP(hipGetDeviceCount(&device_count));
  PROF_HIP(hipSetDevice(0));
  hipDeviceProp_t prop{};
  PROF_HIP(hipGetDeviceProperties(&prop, 0));
  std::printf("devices: %d, using device 0: %s\n", device_count, prop.name);

  hipStream_t streams[kStreams];
  PROF_HIP(hipStreamCreate(&streams[0]));
  PROF_HIP(hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking));
  hipEvent_t start, stop, done[kStreams];
  PROF_HIP(hipEventCreate(&start));
  PROF_HIP(hipEventCreate(&stop));
  for (auto& event : done) PROF_HIP(hipEventCreateWithFlags(&event, hipEventDisableTiming));

  float* host_in = nullptr;
  float* host_out = nullptr;
  PROF_HIP(
      hipHostMalloc(reinterpret_cast<void**>(&host_in), bytes * kStreams, hipHostMallocDefault));
  PROF_HIP(
      hipHostMalloc(reinterpret_cast<void**>(&host_out), bytes * kStreams, hipHostMallocDefault));
  float* device_in[kStreams];
  float* device_out[kStreams];
  float* device_blur[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_in[s]), bytes));
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_out[s]), bytes));
    PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device_blur[s]), bytes));
  }
  for (int i = 0; i < n * kStreams; ++i) host_in[i] = static_cast<float>(i % 97);

  const dim3 grid{(static_cast<unsigned>(n) + kBlock - 1) / kBlock, 1, 1};
  const dim3 block{kBlock, 1, 1};
  const size_t halo_bytes = sizeof(float) * (kBlock + 2);
  PROF_HIP(hipEventRecord(start, streams[0]));
  for (int it = 0; it < iterations; ++it) {
    for (int s = 0; s < kStreams; ++s) {
      hipStream_t stream = streams[s];
      PROF_HIP(hipMemcpyAsync(device_in[s], host_in + s * n, bytes, hipMemcpyHostToDevice, stream));
      PROF_HIP(hipMemsetAsync(device_blur[s], 0, bytes, stream));
      counts.copies += 2;

      float* out = device_out[s];
      const float* in = device_in[s];
      float factor = 2.0f + static_cast<float>(s);
      int count = n;
      void* scale_args[] = {&out, &in, &factor, &count};
      PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&scale<float>), grid, block,
                               scale_args, 0, stream));
      float* blurred = device_blur[s];
      const float* scaled = device_out[s];
      void* blur_args[] = {&blurred, &scaled, &count};
      PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&blur_shared), grid, block, blur_args,
                               halo_bytes, stream));
      counts.kernels += 2;

      // Copy the input back: the simulated runtime moves bytes but runs no kernels.
      PROF_HIP(
          hipMemcpyAsync(host_out + s * n, device_in[s], bytes, hipMemcpyDeviceToHost, stream));
      counts.copies += 1;
      PROF_HIP(hipEventRecord(done[s], stream));
    }
    // Stream 0 may not start the next round before stream 1 has finished this one.
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
  std::printf("timing: %d iterations on %d streams took %.3f ms\n", iterations, kStreams,
              elapsed_ms);

  int mismatches = 0;
  for (int i = 0; i < n * kStreams; ++i) mismatches += host_out[i] != host_in[i];
  std::vector<float> check(n);
  PROF_HIP(hipMemcpy(check.data(), device_in[1], bytes, hipMemcpyDeviceToHost));
  counts.copies += 1;
  for (int i = 0; i < n; ++i) mismatches += check[i] != host_in[n + i];
  std::printf("round trip: %d elements x %d streams, %d mismatches, stream query %s\n", n, kStreams,
              mismatches, query == hipSuccess ? "idle" : "busy");

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
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=%ld\n", samples::g_api_calls, counts.kernels,
              counts.copies);
  return mismatches == 0 ? 0 : 1;
}
