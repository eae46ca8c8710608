/* The findings engine's ACL sample (e2e:findings, issue 40), in plain C against the acl
   prototypes: three phases, in order, each a pattern a findings rule names.

     sync-copy          12 x (blocking aclrtMemcpy 512 KiB up, 512 KiB down), pinned host memory
     sync-after-launch  15 x (200 us kernel, aclrtSynchronizeStream, 300 us host work)
     device-idle        a 1 ms kernel, 40 ms of host computation (no calls), a 1 ms kernel

   Each phase ends with aclrtSynchronizeDevice. Prints `PHASE <rule> <begin_ns> <end_ns>` per phase
   (CLOCK_MONOTONIC, prof's clock), `PID`, `EXPECT ...` and `END`.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/findings_acl
       build/bin/prof --sim build/test-bin/findings_acl */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../unit/acl_abi_reference.h"
#include "findings_common.h"

#define CALL(expr)                               \
  do {                                           \
    aclError e_ = (expr);                        \
    if (e_ != ACL_SUCCESS) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

static aclrtStream g_stream;
static char* g_pinned_in;
static char* g_pinned_out;
static void* g_device;
static double g_host_result;
/* The simulated runtime finds kernels by name in any non-null binary handle (loading a binary is
   not in the reference): this variable's address is the handle. */
static char g_binary;
static aclrtFuncHandle g_step_kernel;
static aclrtFuncHandle g_idle_kernel;

/* A kernel of `ns` on the simulated NPU: that many blocks of one thread. */
static void launch(aclrtFuncHandle kernel, long long ns) {
  CALL(aclrtLaunchKernel(kernel, (uint32_t)findings_threads_for_ns(ns), &g_device, sizeof g_device,
                         g_stream));
}

static void sync_copy(void) {
  for (int i = 0; i < kFindingsBlockingRounds; ++i) {
    CALL(aclrtMemcpy(g_device, kFindingsBlockingBytes, g_pinned_in, kFindingsBlockingBytes,
                     ACL_MEMCPY_HOST_TO_DEVICE));
    CALL(aclrtMemcpy(g_pinned_out, kFindingsBlockingBytes, g_device, kFindingsBlockingBytes,
                     ACL_MEMCPY_DEVICE_TO_HOST));
  }
}

static void sync_after_launch(void) {
  for (int i = 0; i < kFindingsWaitedLaunches; ++i) {
    launch(g_step_kernel, kFindingsWaitedKernelNs);
    CALL(aclrtSynchronizeStream(g_stream));
    g_host_result += findings_host_compute(kFindingsWaitedHostNs);
  }
}

static void device_idle(void) {
  launch(g_idle_kernel, kFindingsIdleKernelNs);
  g_host_result += findings_host_compute(FINDINGS_IDLE_HOST_NS);
  launch(g_idle_kernel, kFindingsIdleKernelNs);
  CALL(aclrtSynchronizeStream(g_stream));
}

static void run_phase(const char* name, void (*phase)(void)) {
  const long long begin = findings_now_ns();
  phase();
  CALL(aclrtSynchronizeDevice());
  findings_print_phase(name, begin, findings_now_ns());
}

int main(void) {
  CALL(aclInit(NULL));
  CALL(aclrtSetDevice(0));
  CALL(aclrtCreateStream(&g_stream));
  CALL(aclrtMallocHost((void**)&g_pinned_in, kFindingsBlockingBytes));
  CALL(aclrtMallocHost((void**)&g_pinned_out, kFindingsBlockingBytes));
  CALL(aclrtMalloc(&g_device, kFindingsBlockingBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CALL(aclrtBinaryGetFunction(&g_binary, "acl_step_kernel", &g_step_kernel));
  CALL(aclrtBinaryGetFunction(&g_binary, "acl_idle_kernel", &g_idle_kernel));

  run_phase("sync-copy", sync_copy);
  run_phase("sync-after-launch", sync_after_launch);
  run_phase("device-idle", device_idle);

  CALL(aclrtFree(g_device));
  CALL(aclrtFreeHost(g_pinned_in));
  CALL(aclrtFreeHost(g_pinned_out));
  CALL(aclrtDestroyStream(g_stream));
  CALL(aclrtResetDevice(0));
  CALL(aclFinalize());
  printf("PID %ld\n", (long)getpid());
  printf("EXPECT blocking_copies=%d waited_launches=%d idle_host_ns=%lld\n",
         2 * kFindingsBlockingRounds, kFindingsWaitedLaunches, FINDINGS_IDLE_HOST_NS);
  printf("END\n");
  return g_host_result > 0.0 ? 0 : 1;
}
