/* An Ascend ACL program in plain C, written only against the acl prototypes (no vendor SDK: the
   header is the one written from the reference for the ABI test). It initialises ACL, copies with a
   destination capacity (destMax) larger than the bytes it copies (count), runs several operators
   and a model (loaded from a file it writes) on a stream, launches a kernel found by name in a
   binary, captures and replays a model runtime instance, times with events, queries a stream and an
   event through their status out-parameters, and provokes two errors whose codes and messages it
   prints. It prints only what does not depend on timing (timing lines start "timing:"), counts
   every acl* call, and ends with `EXPECT api_calls=N kernels=N copies=N errors=N` and `END`.

   An optional argument, a number of iterations N, adds N rounds of five ops each (a copy, a memset
   and an operator on the stream, a kernel and an operator on the side stream) before the blocking
   copies: 2000 make about 10,000 ops (e2e:busy_host). Without it the output is the same as ever.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/acl_sample [iterations]
       build/bin/prof --sim build/test-bin/acl_sample */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/acl_abi_reference.h"

static long g_calls, g_kernels, g_copies, g_errors;

#define CALL(expr)                               \
  do {                                           \
    aclError e_ = (expr);                        \
    ++g_calls;                                   \
    if (e_ != ACL_SUCCESS) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

static aclDataBuffer* buffer(void* data, size_t size) {
  ++g_calls;
  return aclCreateDataBuffer(data, size);
}

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 0;
  enum { kCount = 1 << 16 };
  const size_t bytes = kCount * sizeof(float);
  const size_t capacity = 2 * bytes; /* destMax: what the destination could hold */

  /* Before aclInit, the runtime refuses. */
  uint32_t devices = 0;
  aclError early = aclrtGetDeviceCount(&devices);
  ++g_calls;
  ++g_errors;
  printf("before aclInit: %d\n", (int)early);
  CALL(aclInit(NULL));
  CALL(aclrtGetDeviceCount(&devices));
  CALL(aclrtSetDevice(0));
  int32_t current = -1;
  CALL(aclrtGetDevice(&current));
  printf("%u NPUs, NPU %d\n", devices, (int)current);

  float *host_in = NULL, *host_out = NULL;
  CALL(aclrtMallocHost((void**)&host_in, capacity));
  CALL(aclrtMallocHost((void**)&host_out, capacity));
  for (int i = 0; i < kCount; ++i) host_in[i] = (float)i;
  memset(host_out, 0, capacity);
  void *x = NULL, *y = NULL, *z = NULL;
  CALL(aclrtMalloc(&x, capacity, ACL_MEM_MALLOC_HUGE_FIRST));
  CALL(aclrtMalloc(&y, capacity, ACL_MEM_MALLOC_NORMAL_ONLY));
  CALL(aclrtMalloc(&z, capacity, ACL_MEM_MALLOC_HUGE_FIRST));

  aclrtStream stream = NULL, side = NULL;
  CALL(aclrtCreateStream(&stream));
  CALL(aclrtCreateStreamWithConfig(&side, 0, 0));
  aclrtEvent start = NULL, stop = NULL, marker = NULL;
  CALL(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
  CALL(aclrtCreateEventExWithFlag(&stop, ACL_EVENT_TIME_LINE));
  CALL(aclrtCreateEvent(&marker));

  /* The model file (16 MiB: the model runs about 1 ms, so the queries below see it running). */
  const char* model_path = "tiny_resnet.om";
  FILE* f = fopen(model_path, "wb");
  static unsigned char chunk[1 << 20];
  for (int i = 0; f && i < 16; ++i) fwrite(chunk, 1, sizeof chunk, f);
  if (f) fclose(f);

  /* Copies: destMax is the capacity, count the bytes moved. */
  CALL(aclrtMemcpyAsync(x, capacity, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CALL(aclrtMemsetAsync(y, capacity, 0, bytes, stream));
  g_copies += 2;

  /* Operators on the stream, between timing events: Add(x, x) -> y, Mul(y, x) -> z, Relu(z) -> z.
   */
  int64_t dims[1] = {kCount};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  ++g_calls;
  aclTensorDesc* descs[2] = {desc, desc};
  aclDataBuffer* bx = buffer(x, bytes);
  aclDataBuffer* by = buffer(y, bytes);
  aclDataBuffer* bz = buffer(z, bytes);
  aclDataBuffer* add_in[2] = {bx, bx};
  aclDataBuffer* add_out[1] = {by};
  aclDataBuffer* mul_in[2] = {by, bx};
  aclDataBuffer* mul_out[1] = {bz};
  aclDataBuffer* relu_io[1] = {bz};
  CALL(aclrtRecordEvent(start, stream));
  CALL(aclopExecuteV2("Add", 2, descs, add_in, 1, descs, add_out, NULL, stream));
  CALL(aclopExecuteV2("Mul", 2, descs, mul_in, 1, descs, mul_out, NULL, stream));
  CALL(aclopCompileAndExecuteV2("Relu", 1, descs, relu_io, 1, descs, relu_io, NULL, ACL_ENGINE_SYS,
                                ACL_COMPILE_SYS, NULL, stream));
  CALL(aclopCompileAndExecute("Cast", 1, (const aclTensorDesc* const*)descs,
                              (const aclDataBuffer* const*)relu_io, 1,
                              (const aclTensorDesc* const*)descs, relu_io, NULL, ACL_ENGINE_SYS,
                              ACL_COMPILE_SYS, NULL, stream));
  g_kernels += 4;

  /* A model, loaded from the file this program writes, run on the stream and then blocking. */
  uint32_t model = 0;
  CALL(aclmdlLoadFromFile(model_path, &model));
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  g_calls += 2;
  CALL(aclmdlAddDatasetBuffer(in, bx));
  CALL(aclmdlAddDatasetBuffer(out, bz));
  CALL(aclmdlExecuteAsync(model, in, out, stream));
  CALL(aclrtRecordEvent(stop, stream));
  ++g_kernels;

  /* The queries answer through their status out-parameters. */
  aclrtStreamStatus stream_status = ACL_STREAM_STATUS_RESERVED;
  aclrtEventRecordedStatus event_status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  CALL(aclrtStreamQuery(stream, &stream_status));
  CALL(aclrtQueryEventStatus(stop, &event_status));
  printf("while running: stream %d, event %d\n", (int)stream_status, (int)event_status);
  CALL(aclrtSynchronizeEvent(stop));
  CALL(aclrtSynchronizeStream(stream));
  CALL(aclrtStreamQuery(stream, &stream_status));
  CALL(aclrtQueryEventStatus(stop, &event_status));
  printf("after sync: stream %d, event %d\n", (int)stream_status, (int)event_status);
  float ms = 0.0f;
  CALL(aclrtEventElapsedTime(&ms, start, stop));
  uint64_t t_start = 0, t_stop = 0;
  CALL(aclrtEventGetTimestamp(start, &t_start));
  CALL(aclrtEventGetTimestamp(stop, &t_stop));
  printf("timing: elapsed_ms=%.6f timestamps_us=%llu\n", ms,
         (unsigned long long)(t_stop - t_start));
  CALL(aclmdlExecute(model, in, out));
  ++g_kernels;

  /* A kernel found by name in a binary, launched four ways, and a cross-stream wait. */
  aclrtFuncHandle kernel = NULL;
  CALL(aclrtBinaryGetFunction((aclrtBinHandle)host_in, "vector_scale_kernel", &kernel));
  CALL(aclrtLaunchKernel(kernel, 16, x, 64, side));
  CALL(aclrtLaunchKernelV2(kernel, 32, x, 64, NULL, side));
  CALL(aclrtLaunchKernelWithConfig(kernel, 8, side, NULL, NULL, NULL));
  CALL(aclrtLaunchKernelWithHostArgs(kernel, 4, side, NULL, host_in, 64, NULL, 0));
  g_kernels += 4;
  CALL(aclrtRecordEvent(marker, side));
  CALL(aclrtStreamWaitEvent(stream, marker));

  /* Capture two operators into a model runtime instance and replay it twice. */
  aclmdlRICaptureStatus capture = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
  aclmdlRI ri = NULL;
  CALL(aclmdlRICaptureBegin(side, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  CALL(aclmdlRICaptureGetInfo(side, &capture, &ri));
  CALL(aclopExecuteV2("Add", 2, descs, add_in, 1, descs, add_out, NULL, side));
  CALL(aclopExecuteV2("Mul", 2, descs, mul_in, 1, descs, mul_out, NULL, side));
  CALL(aclmdlRICaptureEnd(side, &ri));
  CALL(aclmdlRIExecuteAsync(ri, side));
  CALL(aclmdlRIExecuteAsync(ri, side));
  g_kernels += 2;
  CALL(aclrtSynchronizeStream(side));
  printf("captured while capturing: %d\n", (int)capture);

  /* Rounds of work on both streams (only with an iteration count). */
  for (long i = 0; i < iterations; ++i) {
    CALL(aclrtMemcpyAsync(x, capacity, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    CALL(aclrtMemsetAsync(y, capacity, 0, bytes, stream));
    CALL(aclopExecuteV2("Add", 2, descs, add_in, 1, descs, add_out, NULL, stream));
    CALL(aclrtLaunchKernel(kernel, 16, x, 64, side));
    CALL(aclopExecuteV2("Mul", 2, descs, mul_in, 1, descs, mul_out, NULL, side));
    g_copies += 2;
    g_kernels += 3;
  }
  if (iterations > 0) {
    CALL(aclrtSynchronizeStream(stream));
    CALL(aclrtSynchronizeStream(side));
  }

  /* Blocking copies back, every kind the sample can check; destMax larger than count again. */
  CALL(aclrtMemset(z, capacity, 0, bytes));
  CALL(aclrtMemcpy(z, capacity, host_in, bytes, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
  CALL(aclrtMemcpy(y, capacity, z, bytes, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
  CALL(aclrtMemcpyAsync(host_out, capacity, y, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CALL(aclrtSynchronizeStream(stream));
  CALL(aclrtMemcpy(host_out + kCount, bytes, host_in, 1024, ACL_MEMCPY_HOST_TO_HOST));
  /* DEFAULT: the runtime infers host-to-device (long enough that the idle stream is still copying
     when a profiler places its end event). */
  CALL(aclrtMemcpyAsync(x, capacity, host_in, bytes, ACL_MEMCPY_DEFAULT, stream));
  CALL(aclrtSynchronizeDevice());
  g_copies += 6;
  printf("round trip %s\n", memcmp(host_in, host_out, bytes) == 0 ? "matches" : "DIFFERS");

  /* Errors: count larger than destMax; then a timed operator (prof's events must not touch the
     error state), the last error and the recent message; then a destroyed stream. */
  aclError too_big = aclrtMemcpy(y, 16, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  ++g_calls;
  ++g_errors;
  printf("count > destMax: %d\n", (int)too_big);
  CALL(aclopExecuteV2("Relu", 1, descs, relu_io, 1, descs, relu_io, NULL, stream));
  ++g_kernels;
  CALL(aclrtSynchronizeStream(stream));
  aclError peeked = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
  aclError got = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
  aclError after = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
  const char* message = aclGetRecentErrMsg();
  const char* again = aclGetRecentErrMsg();
  g_calls += 5;
  printf("last error: peek %d, get %d, then %d; message %s; then %s\n", (int)peeked, (int)got,
         (int)after, message ? "present" : "none", again ? "present" : "none");
  CALL(aclrtDestroyStream(side));
  aclError gone = aclrtSynchronizeStream(side);
  ++g_calls;
  ++g_errors;
  printf("destroyed stream: %d\n", (int)gone);

  CALL(aclmdlDestroyDataset(in));
  CALL(aclmdlDestroyDataset(out));
  CALL(aclmdlUnload(model));
  CALL(aclDestroyDataBuffer(bx));
  CALL(aclDestroyDataBuffer(by));
  CALL(aclDestroyDataBuffer(bz));
  aclDestroyTensorDesc(desc);
  ++g_calls;
  CALL(aclrtDestroyEvent(start));
  CALL(aclrtDestroyEvent(stop));
  CALL(aclrtDestroyEvent(marker));
  CALL(aclrtDestroyStream(stream));
  CALL(aclrtFree(x));
  CALL(aclrtFree(y));
  CALL(aclrtFree(z));
  CALL(aclrtFreeHost(host_in));
  CALL(aclrtFreeHost(host_out));
  CALL(aclrtResetDevice(0));
  CALL(aclFinalize());
  unlink(model_path);

  printf("PID %ld\n", (long)getpid());
  printf("EXPECT api_calls=%ld kernels=%ld copies=%ld errors=%ld\n", g_calls, g_kernels, g_copies,
         g_errors);
  printf("END\n");
  return 0;
}
