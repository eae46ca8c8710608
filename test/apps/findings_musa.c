/* The findings engine's MUSA sample (e2e:findings, issue 40), in plain C against the musa*
   prototypes: three phases, in order, each a pattern a findings rule names.

     sync-copy          12 x (blocking musaMemcpy 512 KiB up, 512 KiB down), pinned host memory
     sync-after-launch  15 x (200 us kernel, musaStreamSynchronize, 300 us host work)
     device-idle        a 1 ms kernel, 40 ms of host computation (no calls), a 1 ms kernel

   Each phase ends with musaDeviceSynchronize. Prints `PHASE <rule> <begin_ns> <end_ns>` per phase
   (CLOCK_MONOTONIC, prof's clock), `PID`, `EXPECT ...` and `END`.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/findings_musa
       build/bin/prof --sim build/test-bin/findings_musa */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../unit/musa_abi_reference.h"
#include "findings_common.h"

#define CALL(expr)                               \
  do {                                           \
    musaError_t e_ = (expr);                     \
    if (e_ != musaSuccess) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

/* Kernel stand-ins: host functions whose addresses are the kernels' handles, named from the ELF. */
__attribute__((noinline, used)) void musa_step_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop" ::: "memory");
}
__attribute__((noinline, used)) void musa_idle_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop" ::: "memory");
}

static musaStream_t g_stream;
static char* g_pinned_in;
static char* g_pinned_out;
static char* g_device;
static double g_host_result;

/* A kernel of `ns` on the simulated device: 256-thread blocks, enough of them. */
static void launch(void (*kernel)(char*), long long ns) {
  const unsigned long long threads = findings_threads_for_ns(ns);
  const dim3 grid = {(unsigned)((threads + 255) / 256), 1, 1};
  const dim3 block = {256, 1, 1};
  void* args[] = {(void*)&g_device};
  CALL(musaLaunchKernel((const void*)kernel, grid, block, args, 0, g_stream));
}

static void sync_copy(void) {
  for (int i = 0; i < kFindingsBlockingRounds; ++i) {
    CALL(musaMemcpy(g_device, g_pinned_in, kFindingsBlockingBytes, musaMemcpyHostToDevice));
    CALL(musaMemcpy(g_pinned_out, g_device, kFindingsBlockingBytes, musaMemcpyDeviceToHost));
  }
}

static void sync_after_launch(void) {
  for (int i = 0; i < kFindingsWaitedLaunches; ++i) {
    launch(musa_step_kernel, kFindingsWaitedKernelNs);
    CALL(musaStreamSynchronize(g_stream));
    g_host_result += findings_host_compute(kFindingsWaitedHostNs);
  }
}

static void device_idle(void) {
  launch(musa_idle_kernel, kFindingsIdleKernelNs);
  g_host_result += findings_host_compute(FINDINGS_IDLE_HOST_NS);
  launch(musa_idle_kernel, kFindingsIdleKernelNs);
  CALL(musaStreamSynchronize(g_stream));
}

static void run_phase(const char* name, void (*phase)(void)) {
  const long long begin = findings_now_ns();
  phase();
  CALL(musaDeviceSynchronize());
  findings_print_phase(name, begin, findings_now_ns());
}

int main(void) {
  CALL(musaSetDevice(0));
  CALL(musaStreamCreateWithFlags(&g_stream, musaStreamNonBlocking));
  CALL(musaMallocHost((void**)&g_pinned_in, kFindingsBlockingBytes));
  CALL(musaMallocHost((void**)&g_pinned_out, kFindingsBlockingBytes));
  CALL(musaMalloc((void**)&g_device, kFindingsBlockingBytes));

  run_phase("sync-copy", sync_copy);
  run_phase("sync-after-launch", sync_after_launch);
  run_phase("device-idle", device_idle);

  CALL(musaFree(g_device));
  CALL(musaFreeHost(g_pinned_in));
  CALL(musaFreeHost(g_pinned_out));
  CALL(musaStreamDestroy(g_stream));
  printf("PID %ld\n", (long)getpid());
  printf("EXPECT blocking_copies=%d waited_launches=%d idle_host_ns=%lld\n",
         2 * kFindingsBlockingRounds, kFindingsWaitedLaunches, FINDINGS_IDLE_HOST_NS);
  printf("END\n");
  return g_host_result > 0.0 ? 0 : 1;
}
