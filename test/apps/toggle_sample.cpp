// Capture control (e2e:capture_control). With no argument: HIP calls outside and inside three
// hipProfilerStart/Stop windows and one roctxProfilerResume/Pause window, a kernel and a copy
// enqueued in the first window that finish after it closes; prints `WINDOW n calls=N names=...`
// (the HIP calls of each window, its start and stop calls included) and `OUTSIDE calls=N`.
// With `timed SECONDS`: hipGetDevice every millisecond for that long (for --delay/--duration),
// printing `TIMED calls=N`. Both print `PID` and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/toggle_sample
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtimes/hip/hip_runtime_decls.hpp"
#include "runtimes/roctx/roctx_runtime_decls.hpp"

extern "C" __attribute__((noinline, used)) void window_kernel(float* x) {
  (void)x;
  __asm__ volatile("nop" ::: "memory");
}

namespace {

int g_failures = 0;
long g_outside = 0;
std::vector<std::string> g_window;  // names of the calls of the open window

void call(const char* name, hipError_t result, bool inside) {
  if (result != hipSuccess) ++g_failures;
  if (inside)
    g_window.push_back(name);
  else
    ++g_outside;
}
#define CALL(inside, expr) call(#expr, (expr), inside)

void close_window(int n) {
  std::string names;
  for (const std::string& name : g_window)
    names += (names.empty() ? "" : ",") + name.substr(0, name.find('('));
  std::printf("WINDOW %d calls=%zu names=%s\n", n, g_window.size(), names.c_str());
  g_window.clear();
}

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

int timed(double seconds) {
  long calls = 0;
  int device = -1;
  for (const double end = now_s() + seconds; now_s() < end; ++calls) {
    if (hipGetDevice(&device) != hipSuccess) ++g_failures;
    usleep(1000);
  }
  std::printf("TIMED calls=%ld\n", calls);
  std::printf("END\n");
  return g_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  if (argc == 3 && std::strcmp(argv[1], "timed") == 0) return timed(std::atof(argv[2]));
  int device = -1, count = 0;
  void* buffer = nullptr;
  std::vector<float> host(1 << 16, 1.0f);
  hipStream_t stream = nullptr;
  CALL(false, hipSetDevice(0));
  CALL(false, hipGetDeviceCount(&count));
  CALL(false, hipMalloc(&buffer, host.size() * sizeof(float)));
  CALL(false, hipStreamCreate(&stream));

  // Window 1: a copy and a kernel enqueued inside, still running when it closes.
  CALL(true, hipProfilerStart());
  CALL(true, hipMemcpyAsync(buffer, host.data(), host.size() * sizeof(float), hipMemcpyHostToDevice,
                            stream));
  void* args[] = {&buffer};
  CALL(true, hipLaunchKernel(reinterpret_cast<const void*>(window_kernel), dim3{64, 1, 1},
                             dim3{256, 1, 1}, args, 0, stream));
  CALL(true, hipGetDevice(&device));
  CALL(true, hipProfilerStop());
  close_window(1);
  for (int i = 0; i < 5; ++i) CALL(false, hipGetDevice(&device));
  CALL(false, hipStreamSynchronize(stream));

  // Window 2, and a stop while stopped and a start while started: no window of their own.
  CALL(false, hipProfilerStop());
  CALL(true, hipProfilerStart());
  CALL(true, hipProfilerStart());
  for (int i = 0; i < 3; ++i) CALL(true, hipGetDeviceCount(&count));
  CALL(true, hipProfilerStop());
  close_window(2);
  for (int i = 0; i < 4; ++i) CALL(false, hipGetDeviceCount(&count));

  // Window 3.
  CALL(true, hipProfilerStart());
  for (int i = 0; i < 6; ++i) CALL(true, hipGetDevice(&device));
  CALL(true, hipDeviceSynchronize());
  CALL(true, hipProfilerStop());
  close_window(3);
  CALL(false, hipGetDevice(&device));

  // Window 4, by roctx (rocprofiler-sdk's pause/resume): only the HIP calls between are recorded.
  roctxProfilerResume(0);
  for (int i = 0; i < 2; ++i) CALL(true, hipGetDevice(&device));
  roctxProfilerPause(0);
  close_window(4);

  CALL(false, hipStreamDestroy(stream));
  CALL(false, hipFree(buffer));
  std::printf("OUTSIDE calls=%ld\n", g_outside);
  std::printf("END\n");
  return g_failures == 0 ? 0 : 1;
}
