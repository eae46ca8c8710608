// Transparency (test/e2e/test_transparency.py): a sequence of HIP calls, failing ones included,
// that prints every return value and every hipGetLastError/hipPeekAtLastError result, so a run
// with prof and one without can be diffed line by line. It also runs two long kernels on two
// streams that overlap on the simulated device (the truth file shows it), and makes hipMemcpyPeer
// calls, which the runtime turns into nested hipMemcpy calls. Ends with `END` and status 3.
// Usage: transparency
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void long_kernel(int* out) {
  if (out) *out = 2;
}

namespace {

int g_step = 0;

void show(const char* what, hipError_t result) {
  std::printf("%3d %-36s -> %d (%s)\n", ++g_step, what, static_cast<int>(result),
              hipGetErrorName(result));
}

void show_errors(const char* when) {
  // Peek first: it must not reset; then get (resets), then peek again (must be hipSuccess now).
  const hipError_t peek = hipPeekAtLastError();
  const hipError_t get = hipGetLastError();
  const hipError_t after = hipPeekAtLastError();
  std::printf("    last error after %-24s peek %d, get %d, peek again %d\n", when,
              static_cast<int>(peek), static_cast<int>(get), static_cast<int>(after));
}

#define SHOW(call)       \
  do {                   \
    show(#call, (call)); \
  } while (0)

}  // namespace

int main() {
  std::fprintf(stderr, "transparency: starting\n");
  int devices = 0;
  SHOW(hipGetDeviceCount(&devices));
  std::printf("    devices %d\n", devices);
  SHOW(hipSetDevice(0));
  show_errors("hipSetDevice(0)");
  SHOW(hipSetDevice(9999));
  show_errors("hipSetDevice(9999)");

  auto* bogus_stream = reinterpret_cast<hipStream_t>(static_cast<uintptr_t>(0x7e57));
  SHOW(hipStreamQuery(bogus_stream));
  show_errors("query of a bad stream");
  SHOW(hipMalloc(nullptr, 16));
  show_errors("hipMalloc(nullptr)");

  const size_t bytes = 1 << 16;
  void* a = nullptr;
  void* b = nullptr;
  void* host = nullptr;
  SHOW(hipMalloc(&a, bytes));
  SHOW(hipMalloc(&b, bytes));
  SHOW(hipHostMalloc(&host, bytes, 0));
  std::memset(host, 7, bytes);
  hipStream_t s1 = nullptr, s2 = nullptr;
  SHOW(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  SHOW(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));

  // A failing asynchronous copy: prof must not replace its error with one of its own calls.
  SHOW(hipMemcpyAsync(a, host, bytes, hipMemcpyHostToDevice, bogus_stream));
  show_errors("copy on a bad stream");
  SHOW(hipMemcpyAsync(a, host, bytes, hipMemcpyHostToDevice, s1));
  show_errors("a good copy");
  SHOW(hipMemcpyAsync(a, host, bytes, static_cast<hipMemcpyKind>(77), s1));
  show_errors("a copy of a bad kind");

  int* arg = nullptr;
  void* args[] = {&arg};
  const dim3 one{1, 1, 1};
  const dim3 block{1024, 1, 1};
  const dim3 zero{0, 1, 1};
  const dim3 big{2048, 1, 1};  // 2M threads: about 0.5 ms on the simulated device
  SHOW(hipLaunchKernel(reinterpret_cast<const void*>(&long_kernel), one, block, args, 0,
                       bogus_stream));
  show_errors("launch on a bad stream");
  SHOW(hipLaunchKernel(reinterpret_cast<const void*>(&long_kernel), zero, block, args, 0, s1));
  show_errors("launch of a zero grid");
  SHOW(hipLaunchKernel(nullptr, one, block, args, 0, s1));
  show_errors("launch of no function");

  // Two long kernels on two non-blocking streams: on the device they overlap.
  SHOW(hipLaunchKernel(reinterpret_cast<const void*>(&long_kernel), big, block, args, 0, s1));
  SHOW(hipLaunchKernel(reinterpret_cast<const void*>(&long_kernel), big, block, args, 0, s2));
  show_errors("two launches");
  SHOW(hipStreamSynchronize(s1));
  SHOW(hipStreamSynchronize(s2));

  hipEvent_t e1 = nullptr, e2 = nullptr;
  SHOW(hipEventCreate(&e1));
  SHOW(hipEventCreate(&e2));
  float ms = 0;
  SHOW(hipEventElapsedTime(&ms, e1, e2));
  show_errors("elapsed time of unrecorded events");
  SHOW(hipEventRecord(e1, bogus_stream));
  show_errors("record on a bad stream");

  // hipMemcpyPeer calls hipMemcpy inside the runtime: prof records one call per hipMemcpyPeer.
  for (int i = 0; i < 3; ++i) SHOW(hipMemcpyPeer(b, 0, a, 0, bytes));
  show_errors("peer copies");

  hipStreamCaptureStatus capture = hipStreamCaptureStatusActive;
  SHOW(hipStreamIsCapturing(s1, &capture));
  std::printf("    capture status %d\n", static_cast<int>(capture));
  SHOW(hipFree(host));
  show_errors("hipFree of host memory");
  SHOW(hipStreamDestroy(s2));
  SHOW(hipStreamQuery(s2));
  show_errors("query of a destroyed stream");
  SHOW(hipEventDestroy(e1));
  SHOW(hipEventDestroy(e2));
  SHOW(hipStreamDestroy(s1));
  SHOW(hipHostFree(host));
  SHOW(hipFree(a));
  SHOW(hipFree(b));
  SHOW(hipDeviceSynchronize());
  show_errors("the end");
  std::printf("END\n");
  std::fflush(stdout);
  std::fprintf(stderr, "transparency: done\n");
  return 3;
}
