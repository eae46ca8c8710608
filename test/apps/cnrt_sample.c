/* A Cambricon CNRT program in plain C, written only against cnrt.h's prototypes (no vendor SDK: the
   header is the one written from the reference for the ABI test). It invokes kernels by host
   function address (one in this program, one in libcnrt_kernels.so), copies in every direction on
   queues and blocking, uses the per-thread and legacy queues, times with notifiers (ms and us),
   queries a queue and a notifier while work runs (cnrtErrorBusy), and makes two invalid calls whose
   errors it prints. It prints only what does not depend on timing (timing lines start "timing:"),
   counts every cnrt* call, and ends with `EXPECT api_calls=N kernels=N copies=N errors=N`
   (copies counts copies and memsets) and `END`. An optional argument N adds N rounds of four
   queued ops (an upload, a memset on a second queue, a kernel on the queue or the per-thread
   queue, a download) before the errors, for runs of ~10,000 ops (test_busy_host.py); without it
   the program and its output are as before.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/cnrt_sample [rounds]
       build/bin/prof --sim build/test-bin/cnrt_sample [rounds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/cnrt_abi_reference.h"

void cnrt_lib_fill(float* out, float value, int n); /* libcnrt_kernels.so */

static long g_calls;
static long g_kernels;
static long g_copies;
static long g_errors;

#define CALL(expr)                               \
  do {                                           \
    cnrtRet_t e_ = (expr);                       \
    ++g_calls;                                   \
    if (e_ != cnrtSuccess) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

/* The program's own kernel stand-in: its address is its handle. */
__attribute__((noinline, used)) void cnrt_scale_kernel(float* x, float factor, int n) {
  (void)x, (void)factor, (void)n;
  __asm__ volatile("nop" ::: "memory");
}

static void invoke(const void* kernel, unsigned tasks, cnrtFunctionType_t type, void** args,
                   cnrtQueue_t queue) {
  cnrtDim3_t dim = {tasks, 1, 1};
  CALL(cnrtInvokeKernel(kernel, dim, type, args, 0, queue));
  ++g_kernels;
}

int main(int argc, char** argv) {
  enum { kCount = 1 << 16 };
  const long rounds = argc > 1 ? atol(argv[1]) : 0;
  const size_t bytes = kCount * sizeof(float);

  int major = 0, minor = 0, patch = 0;
  CALL(cnrtGetLibVersion(&major, &minor, &patch));
  unsigned devices = 0;
  CALL(cnrtGetDeviceCount(&devices));
  CALL(cnrtSetDevice(0));
  int current = -1;
  CALL(cnrtGetDevice(&current));
  cnrtDeviceProp_t prop;
  CALL(cnrtGetDeviceProperties(&prop, 0));
  printf("CNRT %d.%d.%d, %u MLUs, MLU %d: %s\n", major, minor, patch, devices, current, prop.name);

  float *host_in = NULL, *host_out = NULL;
  CALL(cnrtHostMalloc((void**)&host_in, bytes));
  CALL(cnrtHostMalloc((void**)&host_out, bytes));
  for (int i = 0; i < kCount; ++i) host_in[i] = (float)i;
  memset(host_out, 0, bytes);
  float *a = NULL, *b = NULL, *peer = NULL, *scratch = NULL;
  CALL(cnrtMalloc((void**)&a, bytes));
  CALL(cnrtMalloc((void**)&b, bytes));
  CALL(cnrtSetDevice(1));
  CALL(cnrtMalloc((void**)&peer, bytes));
  CALL(cnrtSetDevice(0));

  cnrtQueue_t queue = NULL, side = NULL;
  CALL(cnrtQueueCreate(&queue));
  CALL(cnrtQueueCreateWithPriority(&side, 0, 0));
  cnrtNotifier_t start = NULL, stop = NULL, hw_only = NULL;
  CALL(cnrtNotifierCreate(&start));
  CALL(cnrtNotifierCreateWithFlags(&stop, CNRT_NOTIFIER_DEFAULT));
  CALL(cnrtNotifierCreateWithFlags(&hw_only, CNRT_NOTIFIER_DISABLE_TIMING_SW));

  /* On a queue: upload (the queue before the direction), clear, two kernels between notifiers,
     device-to-device and download. The first kernel is long (4M tasks of one core: about 1 ms),
     so the queue and the stop notifier are still busy when queried right after. */
  CALL(cnrtMemcpyAsync(a, host_in, bytes, queue, cnrtMemcpyHostToDev));
  CALL(cnrtMemsetAsync(b, 0, bytes, queue));
  g_copies += 2;
  CALL(cnrtPlaceNotifier(start, queue));
  float factor = 2.0f;
  int n = kCount;
  void* scale_args[] = {(void*)&a, (void*)&factor, (void*)&n};
  invoke((const void*)cnrt_scale_kernel, 4u << 20, cnrtFuncTypeBlock, scale_args, queue);
  float value = 1.0f;
  void* fill_args[] = {(void*)&b, (void*)&value, (void*)&n};
  invoke((const void*)cnrt_lib_fill, 1024, cnrtFuncTypeUnion1, fill_args, queue);
  CALL(cnrtPlaceNotifierWithFlags(stop, queue, 0));
  CALL(cnrtPlaceNotifier(hw_only, queue));
  CALL(cnrtMemcpyAsync_V2(b, a, bytes, queue, cnrtMemcpyDevToDev));
  CALL(cnrtMemcpyAsync_V3(host_out, b, bytes, queue, cnrtMemcpyDevToHost));
  g_copies += 2;
  cnrtRet_t busy_queue = cnrtQueueQuery(queue);
  cnrtRet_t busy_notifier = cnrtQueryNotifier(stop);
  g_calls += 2;
  printf("while running: queue query %d (%s), notifier query %d (%s)\n", (int)busy_queue,
         cnrtGetErrorName(busy_queue), (int)busy_notifier, cnrtGetErrorName(busy_notifier));
  g_calls += 2;
  CALL(cnrtQueueSync(queue));
  CALL(cnrtQueueQuery(queue));
  CALL(cnrtQueryNotifier(stop));
  CALL(cnrtWaitNotifier(stop));
  float ms = 0.0f, us = 0.0f;
  CALL(cnrtNotifierElapsedTime(start, stop, &ms));
  CALL(cnrtNotifierDuration(start, stop, &us));
  printf("timing: elapsed_ms=%.6f duration_us=%.3f\n", ms, us);
  const float elapsed_ms = ms;
  float hw_us = 0.0f;
  CALL(cnrtNotifierDuration(start, hw_only, &hw_us));
  cnrtRet_t no_sw = cnrtNotifierElapsedTime(start, hw_only, &ms);
  ++g_calls;
  ++g_errors;
  printf("software timing disabled: %d (%s)\n", (int)no_sw, cnrtGetErrorName(no_sw));
  ++g_calls;
  printf("queue round trip %s, us = 1000 x ms: %s\n",
         memcmp(host_in, host_out, bytes) == 0 ? "matches" : "DIFFERS",
         us > 0.0f && us - 1000.0f * elapsed_ms < 0.001f * us &&
                 1000.0f * elapsed_ms - us < 0.001f * us
             ? "yes"
             : "no");

  /* The implicit queues: per-thread (1) and legacy (2). */
  invoke((const void*)cnrt_scale_kernel, 256, cnrtFuncTypeUnion2, scale_args, cnrtQueuePerThread);
  CALL(cnrtMemcpyAsync(a, host_in, bytes, cnrtQueueLegacy, cnrtMemcpyHostToDev));
  ++g_copies;
  CALL(cnrtQueueSync(cnrtQueuePerThread));
  CALL(cnrtQueueSync(cnrtQueueLegacy));

  /* Blocking, peer and host-to-host copies; queue-ordered allocation; a cross-queue wait. */
  memset(host_out, 0, bytes);
  CALL(cnrtMemset(b, 0, bytes));
  CALL(cnrtMemcpy(b, host_in, bytes, cnrtMemcpyHostToDev));
  CALL(cnrtMemcpyPeer(peer, 1, b, 0, bytes));
  CALL(cnrtMemcpyPeerAsync(a, 0, peer, 1, bytes, queue));
  CALL(cnrtMemcpy(host_out, a, bytes, cnrtMemcpyDevToHost));
  g_copies += 5;
  int equal_after_peer = memcmp(host_in, host_out, bytes) == 0;
  CALL(cnrtMemcpy(host_out, host_in, 256, cnrtMemcpyHostToHost));
  ++g_copies;
  CALL(cnrtMemAllocAsync((void**)&scratch, bytes, queue));
  /* NoDirection: the runtime infers host-to-device from the pointers. (A host source also makes it
     long enough that the idle queue is still copying when prof places its end notifier.) */
  CALL(cnrtMemcpyAsync(scratch, host_in, bytes, queue, cnrtMemcpyNoDirection));
  ++g_copies;
  CALL(cnrtMemFreeAsync(scratch, queue));
  CALL(cnrtQueueWaitNotifier(stop, side, 0));
  CALL(cnrtPlaceNotifier(start, side));
  CALL(cnrtQueueSync(side));
  CALL(cnrtSyncDevice());
  enum cnrtQueueCaptureStatus capturing = cnrtQueueCaptureStatusActive;
  CALL(cnrtQueueIsCapturing(queue, &capturing));
  printf("blocking and peer round trip %s, capturing %d\n",
         equal_after_peer ? "matches" : "DIFFERS", (int)capturing);

  /* Many small ops, when asked for. */
  if (rounds > 0) {
    const size_t small = 4096;
    for (long i = 0; i < rounds; ++i) {
      CALL(cnrtMemcpyAsync(a, host_in, small, queue, cnrtMemcpyHostToDev));
      CALL(cnrtMemsetAsync(b, 0, small, side));
      invoke((const void*)cnrt_scale_kernel, 64, cnrtFuncTypeBlock, scale_args,
             i % 2 ? cnrtQueuePerThread : queue);
      CALL(cnrtMemcpyAsync(host_out, a, small, queue, cnrtMemcpyDevToHost));
      g_copies += 3;
    }
    CALL(cnrtQueueSync(queue));
    CALL(cnrtQueueSync(side));
    CALL(cnrtQueueSync(cnrtQueuePerThread));
    printf("rounds: %ld\n", rounds);
  }

  /* Errors: a direction that is not one, then a kernel (timed under prof: its notifiers must not
     touch the last error), a queue handle never given out, a task topology never instantiated. */
  cnrtRet_t bad_dir = cnrtMemcpy(host_out, a, bytes, (cnrtMemTransDir_t)9);
  ++g_calls;
  ++g_errors;
  printf("bad direction: %d %s (%s)\n", (int)bad_dir, cnrtGetErrorName(bad_dir),
         cnrtGetErrorStr(bad_dir));
  g_calls += 2;
  invoke((const void*)cnrt_lib_fill, 64, cnrtFuncTypeBlock, fill_args, queue);
  CALL(cnrtQueueSync(queue));
  cnrtRet_t peeked = cnrtPeekAtLastError();
  cnrtRet_t got = cnrtGetLastError();
  cnrtRet_t after = cnrtGetLastError();
  g_calls += 3;
  printf("last error: peek %d, get %d, then %d\n", (int)peeked, (int)got, (int)after);
  cnrtRet_t bad_queue = cnrtQueueSync((cnrtQueue_t)(void*)host_out);
  cnrtRet_t bad_topo = cnrtTaskTopoEntityInvoke((cnrtTaskTopoEntity_t)(void*)host_in, queue);
  g_calls += 2;
  g_errors += 2;
  printf("bad queue: %d %s, bad task topology: %d %s\n", (int)bad_queue,
         cnrtGetErrorName(bad_queue), (int)bad_topo, cnrtGetErrorName(bad_topo));
  g_calls += 2;
  CALL(cnrtGetLastError() == bad_topo ? cnrtSuccess : cnrtErrorUnknown);

  CALL(cnrtNotifierDestroy(start));
  CALL(cnrtNotifierDestroy(stop));
  CALL(cnrtNotifierDestroy(hw_only));
  CALL(cnrtQueueDestroy(queue));
  CALL(cnrtQueueDestroy(side));
  CALL(cnrtFree(a));
  CALL(cnrtFree(b));
  CALL(cnrtFree(peer));
  CALL(cnrtFreeHost(host_in));
  CALL(cnrtFreeHost(host_out));
  CALL(cnrtDeviceReset());

  printf("PID %ld\n", (long)getpid());
  printf("EXPECT api_calls=%ld kernels=%ld copies=%ld errors=%ld\n", g_calls, g_kernels, g_copies,
         g_errors);
  printf("END\n");
  return 0;
}
