/* The findings engine's CNRT sample (e2e:findings, issue 40), in plain C against cnrt.h's
   prototypes: three phases, in order, each a pattern a findings rule names.

     sync-copy          12 x (blocking cnrtMemcpy 512 KiB up, 512 KiB down), pinned host memory
     sync-after-launch  15 x (200 us kernel, cnrtQueueSync, 300 us host work)
     device-idle        a 1 ms kernel, 40 ms of host computation (no calls), a 1 ms kernel

   Each phase ends with cnrtSyncDevice. Prints `PHASE <rule> <begin_ns> <end_ns>` per phase
   (CLOCK_MONOTONIC, prof's clock), `PID`, `EXPECT ...` and `END`.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/findings_cnrt
       build/bin/prof --sim build/test-bin/findings_cnrt */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../unit/cnrt_abi_reference.h"
#include "findings_common.h"

#define CALL(expr)                               \
  do {                                           \
    cnrtRet_t e_ = (expr);                       \
    if (e_ != cnrtSuccess) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

/* Kernel stand-ins: host functions whose addresses are the kernels' handles, named from the ELF. */
__attribute__((noinline, used)) void cnrt_step_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop" ::: "memory");
}
__attribute__((noinline, used)) void cnrt_idle_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop" ::: "memory");
}

static cnrtQueue_t g_queue;
static char* g_pinned_in;
static char* g_pinned_out;
static char* g_device;
static double g_host_result;

/* A kernel of `ns` on the simulated MLU: that many tasks of one core (cnrtFuncTypeBlock). */
static void invoke(void (*kernel)(char*), long long ns) {
  const cnrtDim3_t dim = {(unsigned)findings_threads_for_ns(ns), 1, 1};
  void* args[] = {(void*)&g_device};
  CALL(cnrtInvokeKernel((const void*)kernel, dim, cnrtFuncTypeBlock, args, 0, g_queue));
}

static void sync_copy(void) {
  for (int i = 0; i < kFindingsBlockingRounds; ++i) {
    CALL(cnrtMemcpy(g_device, g_pinned_in, kFindingsBlockingBytes, cnrtMemcpyHostToDev));
    CALL(cnrtMemcpy(g_pinned_out, g_device, kFindingsBlockingBytes, cnrtMemcpyDevToHost));
  }
}

static void sync_after_launch(void) {
  for (int i = 0; i < kFindingsWaitedLaunches; ++i) {
    invoke(cnrt_step_kernel, kFindingsWaitedKernelNs);
    CALL(cnrtQueueSync(g_queue));
    g_host_result += findings_host_compute(kFindingsWaitedHostNs);
  }
}

static void device_idle(void) {
  invoke(cnrt_idle_kernel, kFindingsIdleKernelNs);
  g_host_result += findings_host_compute(FINDINGS_IDLE_HOST_NS);
  invoke(cnrt_idle_kernel, kFindingsIdleKernelNs);
  CALL(cnrtQueueSync(g_queue));
}

static void run_phase(const char* name, void (*phase)(void)) {
  const long long begin = findings_now_ns();
  phase();
  CALL(cnrtSyncDevice());
  findings_print_phase(name, begin, findings_now_ns());
}

int main(void) {
  CALL(cnrtSetDevice(0));
  CALL(cnrtQueueCreate(&g_queue));
  CALL(cnrtHostMalloc((void**)&g_pinned_in, kFindingsBlockingBytes));
  CALL(cnrtHostMalloc((void**)&g_pinned_out, kFindingsBlockingBytes));
  CALL(cnrtMalloc((void**)&g_device, kFindingsBlockingBytes));

  run_phase("sync-copy", sync_copy);
  run_phase("sync-after-launch", sync_after_launch);
  run_phase("device-idle", device_idle);

  CALL(cnrtFree(g_device));
  CALL(cnrtFreeHost(g_pinned_in));
  CALL(cnrtFreeHost(g_pinned_out));
  CALL(cnrtQueueDestroy(g_queue));
  printf("PID %ld\n", (long)getpid());
  printf("EXPECT blocking_copies=%d waited_launches=%d idle_host_ns=%lld\n",
         2 * kFindingsBlockingRounds, kFindingsWaitedLaunches, FINDINGS_IDLE_HOST_NS);
  printf("END\n");
  return g_host_result > 0.0 ? 0 : 1;
}
