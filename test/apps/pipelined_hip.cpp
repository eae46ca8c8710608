// A well-written HIP pipeline, the findings engine's clean counterpart to findings_hip
// (e2e:findings, issue 40): pinned host memory, the input produced and processed in 40 chunks of
// 256 KiB, each chunk's upload, 10 ms kernel and download queued on one of two streams in turn, so
// one stream's copies overlap the other's kernel, and one hipDeviceSynchronize at the end. The
// host produces the next chunk while the device works on the previous ones; the device is busy
// from the first upload to the last download (about 200 ms on the simulated device, so that the
// runtime's start-up in the first call, about 5 ms, is a small part of the run).
//
// Prints `PID`, `EXPECT kernels=N copies=N` and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/pipelined_hip
//     build/bin/prof --sim build/test-bin/pipelined_hip
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "findings_common.h"
#include "runtimes/hip/hip_runtime_decls.hpp"

// The kernel stand-in (named from the ELF).
extern "C" __attribute__((noinline, used)) void transform_chunk(float* out, const float* in,
                                                                int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * 0.5f + 1.0f;
}

namespace {

#define CHECK(call) check((call), #call, __LINE__)

void check(hipError_t result, const char* what, int line) {
  if (result != hipSuccess) {
    std::printf("FAILED line %d: %s: %d\n", line, what, static_cast<int>(result));
    std::exit(1);
  }
}

constexpr int kStreams = 2;
constexpr int kChunks = 40;
constexpr int kChunkElements = 64 << 10;  // 256 KiB of floats
constexpr size_t kChunkBytes = sizeof(float) * kChunkElements;
constexpr long long kKernelNs = 10000000;

void produce(float* chunk, int first) {
  for (int i = 0; i < kChunkElements; ++i) chunk[i] = static_cast<float>((first + i) % 1000);
}

}  // namespace

int main() {
  CHECK(hipSetDevice(0));
  hipStream_t streams[kStreams];
  for (auto& stream : streams) CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  float* host_in = nullptr;
  float* host_out = nullptr;
  CHECK(hipHostMalloc(reinterpret_cast<void**>(&host_in), kChunkBytes * kChunks,
                      hipHostMallocDefault));
  CHECK(hipHostMalloc(reinterpret_cast<void**>(&host_out), kChunkBytes * kChunks,
                      hipHostMallocDefault));
  float* device_in[kStreams];
  float* device_out[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    CHECK(hipMalloc(reinterpret_cast<void**>(&device_in[s]), kChunkBytes));
    CHECK(hipMalloc(reinterpret_cast<void**>(&device_out[s]), kChunkBytes));
  }

  // 10 ms on the simulated device: 256-thread blocks, enough of them.
  const unsigned long long threads = findings_threads_for_ns(kKernelNs);
  const dim3 block{256, 1, 1};
  const dim3 grid{static_cast<unsigned>((threads + 255) / 256), 1, 1};
  int kernels = 0;
  int copies = 0;
  for (int c = 0; c < kChunks; ++c) {
    const int s = c % kStreams;
    float* in = host_in + static_cast<size_t>(c) * kChunkElements;
    float* out = host_out + static_cast<size_t>(c) * kChunkElements;
    produce(in, c * kChunkElements);
    CHECK(hipMemcpyAsync(device_in[s], in, kChunkBytes, hipMemcpyHostToDevice, streams[s]));
    float* result = device_out[s];
    const float* source = device_in[s];
    int n = kChunkElements;
    void* args[] = {&result, &source, &n};
    CHECK(hipLaunchKernel(reinterpret_cast<const void*>(&transform_chunk), grid, block, args, 0,
                          streams[s]));
    CHECK(hipMemcpyAsync(out, device_out[s], kChunkBytes, hipMemcpyDeviceToHost, streams[s]));
    ++kernels;
    copies += 2;
  }
  CHECK(hipDeviceSynchronize());

  for (int s = 0; s < kStreams; ++s) {
    CHECK(hipFree(device_in[s]));
    CHECK(hipFree(device_out[s]));
  }
  CHECK(hipHostFree(host_in));
  CHECK(hipHostFree(host_out));
  for (auto stream : streams) CHECK(hipStreamDestroy(stream));

  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT kernels=%d copies=%d\n", kernels, copies);
  std::printf("END\n");
  return 0;
}
