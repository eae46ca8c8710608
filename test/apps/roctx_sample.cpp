// roctx markers around HIP work (e2e:markers): nested push/pop ranges `forward` > `attention` with
// kernels launched inside each, a start/stop range begun on the main thread and stopped on a worker
// thread (which has a push/pop range and a kernel of its own), marks whose names hold commas,
// quotes and UTF-8, a mark longer than prof's message bound, and two ranges left open at exit.
// Prints `PID`, the values roctx returned (`LEVELS ...`), `EXPECT ...` and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/roctx_sample
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "runtimes/hip/hip_runtime_decls.hpp"
#include "runtimes/roctx/roctx_runtime_decls.hpp"

// Kernel stand-ins (named from the ELF); different bodies so no two are folded into one.
extern "C" __attribute__((noinline, used)) void attention_kernel(float* x) {
  (void)x;
  __asm__ volatile("nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void mlp_kernel(float* x) {
  (void)x;
  __asm__ volatile("nop\n nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void outside_kernel(float* x) {
  (void)x;
  __asm__ volatile("nop\n nop\n nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void worker_kernel(float* x) {
  (void)x;
  __asm__ volatile("nop\n nop\n nop\n nop" ::: "memory");
}

namespace {

int g_failures = 0;
void* g_buffer = nullptr;

void launch(void (*kernel)(float*), hipStream_t stream) {
  void* args[] = {&g_buffer};
  if (hipLaunchKernel(reinterpret_cast<const void*>(kernel), dim3{4, 1, 1}, dim3{64, 1, 1}, args, 0,
                      stream) != hipSuccess)
    ++g_failures;
}

}  // namespace

int main() {
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  if (hipSetDevice(0) != hipSuccess || hipMalloc(&g_buffer, 4096) != hipSuccess) ++g_failures;

  roctxMarkA("start, \"quoted\" mark");
  const int forward = roctxRangePushA("forward");
  const int attention = roctxRangePushA("attention");
  launch(attention_kernel, nullptr);
  launch(attention_kernel, nullptr);
  const int pop_attention = roctxRangePop();
  for (int i = 0; i < 3; ++i) launch(mlp_kernel, nullptr);
  const int pop_forward = roctxRangePop();
  const int pop_empty = roctxRangePop();
  launch(outside_kernel, nullptr);
  roctxMarkA("étape ✓ 日本語");

  // Begun here, stopped on the worker thread.
  const roctx_range_id_t load = roctxRangeStartA("load, \"batch\" ✓");
  std::thread worker([load] {
    const int level = roctxRangePushA("worker");
    launch(worker_kernel, nullptr);
    roctxRangePop();
    roctxRangeStop(load);
    if (level != 0) ++g_failures;
  });
  worker.join();

  // Longer than prof's bound (256 bytes): cut there, the UTF-8 character at the cut dropped whole.
  const std::string long_mark = std::string(255, 'x') + "é";
  roctxMarkA(long_mark.c_str());

  if (hipDeviceSynchronize() != hipSuccess || hipFree(g_buffer) != hipSuccess) ++g_failures;
  // Never ended: prof closes them at the process's end and flags them.
  roctxRangePushA("never popped");
  const roctx_range_id_t never = roctxRangeStartA("never stopped");

  std::printf(
      "LEVELS forward=%d attention=%d pop_attention=%d pop_forward=%d pop_empty=%d load=%llu "
      "never=%llu\n",
      forward, attention, pop_attention, pop_forward, pop_empty,
      static_cast<unsigned long long>(load), static_cast<unsigned long long>(never));
  std::printf("EXPECT attention=2 forward=3 worker=1 outside=1 marks=3 failures=%d\n", g_failures);
  std::printf("END\n");
  return g_failures == 0 ? 0 : 1;
}
