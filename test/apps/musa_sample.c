/* A MUSA program in plain C, written only against the musa* prototypes (no vendor SDK): the header
   is the one written from the reference for the ABI test. It registers a kernel as MUSA's compiler
   does (__musaRegisterFatBinary / __musaRegisterFunction at start-up, push/pop call configuration
   around musaLaunchKernel at the call site) and launches another directly by address; copies both
   ways on a stream and blocking; times with events; and provokes one error. It prints only what
   does not depend on timing, counts every musa* call it makes, and ends with the line
   `EXPECT api_calls=N kernels=N copies=N errors=N` (copies counts copies and memsets) and `END`.

   An optional argument repeats the asynchronous round (two uploads, two kernels, a download) that
   many times before one synchronize: 2000 rounds make some 10,000 ops (test/e2e/test_busy_host.py).
   Without it the program does one round, as it always did.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/musa_sample [rounds]
       build/bin/prof --sim build/test-bin/musa_sample */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/musa_abi_reference.h"

static long g_calls;
static long g_kernels;
static long g_copies;
static long g_errors;

/* Counts a call and stops the program on an unexpected failure. */
#define CALL(expr)                               \
  do {                                           \
    musaError_t e_ = (expr);                     \
    ++g_calls;                                   \
    if (e_ != musaSuccess) {                     \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

/* Kernel stand-ins: host functions whose addresses are the kernels' handles. They keep their ELF
   symbols; noinline and distinct bodies keep the compiler from folding them into one. */
__attribute__((noinline, used)) void vector_add_stub(const float* a, const float* b, float* c,
                                                     int n) {
  (void)a, (void)b, (void)c, (void)n;
  __asm__ volatile("" ::: "memory");
}
__attribute__((noinline, used)) void scale_in_place(float* x, float factor, int n) {
  (void)x, (void)factor, (void)n;
  __asm__ volatile("nop" ::: "memory");
}

static void** g_fatbin_handle;
static const char kVectorAddName[] = "_Z9vectorAddPKfS0_Pfi";
static char g_vector_add_device_name[] = "_Z9vectorAddPKfS0_Pfi";
static unsigned char g_fatbin[64];

/* What a compiler-generated constructor does: register the image and its kernels. */
static void register_kernels(void) {
  g_fatbin_handle = __musaRegisterFatBinary(g_fatbin);
  ++g_calls;
  __musaRegisterFunction(g_fatbin_handle, (const char*)(void*)vector_add_stub,
                         g_vector_add_device_name, kVectorAddName, -1, NULL, NULL, NULL, NULL,
                         NULL);
  ++g_calls;
}

/* What `vectorAdd<<<grid, block, 0, stream>>>(a, b, c, n)` lowers to. */
static void launch_vector_add(dim3 grid, dim3 block, musaStream_t stream, const float* a,
                              const float* b, float* c, int n) {
  unsigned pushed = __musaPushCallConfiguration(grid, block, 0, stream);
  ++g_calls;
  if (pushed != 0) {
    printf("FAILED push: %u\n", pushed);
    exit(1);
  }
  dim3 g, b2;
  size_t shared = 0;
  musaStream_t s = NULL;
  CALL(__musaPopCallConfiguration(&g, &b2, &shared, &s));
  void* args[] = {(void*)&a, (void*)&b, (void*)&c, (void*)&n};
  CALL(musaLaunchKernel((const void*)vector_add_stub, g, b2, args, shared, s));
  ++g_kernels;
}

int main(int argc, char** argv) {
  enum { kCount = 1 << 16 };
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  const size_t bytes = kCount * sizeof(float);
  register_kernels();

  int devices = 0;
  CALL(musaGetDeviceCount(&devices));
  CALL(musaSetDevice(0));
  struct musaDeviceProp prop;
  CALL(musaGetDeviceProperties(&prop, 0));
  int sms = 0;
  CALL(musaDeviceGetAttribute(&sms, musaDevAttrMultiProcessorCount, 0));
  printf("devices %d, device 0: %s, %d multiprocessors\n", devices, prop.name, sms);

  float* host_in = NULL;
  float* host_out = NULL;
  CALL(musaMallocHost((void**)&host_in, bytes));
  CALL(musaMallocHost((void**)&host_out, bytes));
  for (int i = 0; i < kCount; ++i) host_in[i] = (float)i;
  memset(host_out, 0, bytes);
  float *a = NULL, *b = NULL, *c = NULL;
  CALL(musaMalloc((void**)&a, bytes));
  CALL(musaMalloc((void**)&b, bytes));
  CALL(musaMalloc((void**)&c, bytes));

  musaStream_t stream = NULL;
  musaEvent_t start = NULL, stop = NULL;
  CALL(musaStreamCreateWithFlags(&stream, musaStreamNonBlocking));
  CALL(musaEventCreate(&start));
  CALL(musaEventCreate(&stop));

  /* Asynchronous on the stream: two uploads, two kernels between the events, a download. */
  const dim3 grid = {kCount / 256, 1, 1};
  const dim3 block = {256, 1, 1};
  float factor = 2.0f;
  int n = kCount;
  void* scale_args[] = {(void*)&c, (void*)&factor, (void*)&n};
  for (int round = 0; round < rounds; ++round) {
    CALL(musaMemcpyAsync(a, host_in, bytes, musaMemcpyHostToDevice, stream));
    CALL(musaMemcpyAsync(b, host_in, bytes, musaMemcpyHostToDevice, stream));
    g_copies += 2;
    CALL(musaEventRecord(start, stream));
    launch_vector_add(grid, block, stream, a, b, c, kCount);
    CALL(musaLaunchKernel((const void*)scale_in_place, grid, block, scale_args, 0, stream));
    ++g_kernels;
    CALL(musaEventRecord(stop, stream));
    CALL(musaMemcpyAsync(host_out, a, bytes, musaMemcpyDeviceToHost, stream));
    ++g_copies;
  }
  CALL(musaStreamSynchronize(stream));
  CALL(musaStreamQuery(stream));
  CALL(musaEventQuery(stop));
  float ms = 0.0f;
  CALL(musaEventElapsedTime(&ms, start, stop));
  printf("async round trip %s, kernels timed %s\n",
         memcmp(host_in, host_out, bytes) == 0 ? "matches" : "DIFFERS", ms > 0.0f ? "yes" : "no");

  /* Blocking, on the legacy default stream: a clear, an upload, a download. */
  memset(host_out, 0, bytes);
  CALL(musaMemset(c, 0, bytes));
  CALL(musaMemcpy(c, host_in, bytes, musaMemcpyHostToDevice));
  CALL(musaMemcpy(host_out, c, bytes, musaMemcpyDeviceToHost));
  g_copies += 3;
  CALL(musaDeviceSynchronize());
  printf("blocking round trip %s\n", memcmp(host_in, host_out, bytes) == 0 ? "matches" : "DIFFERS");

  /* One error: a stream handle the runtime never gave out. The call fails, the last error keeps
     it until musaGetLastError reads and clears it. */
  musaError_t bad = musaStreamSynchronize((musaStream_t)(void*)host_out);
  ++g_calls;
  ++g_errors;
  printf("bad stream: %d %s (%s)\n", (int)bad, musaGetErrorName(bad), musaGetErrorString(bad));
  g_calls += 2;
  musaError_t peeked = musaPeekAtLastError();
  musaError_t got = musaGetLastError();
  musaError_t after = musaGetLastError();
  g_calls += 3;
  printf("last error: peek %d, get %d, then %d\n", (int)peeked, (int)got, (int)after);

  CALL(musaEventDestroy(start));
  CALL(musaEventDestroy(stop));
  CALL(musaStreamDestroy(stream));
  CALL(musaFree(a));
  CALL(musaFree(b));
  CALL(musaFree(c));
  CALL(musaFreeHost(host_in));
  CALL(musaFreeHost(host_out));
  __musaUnregisterFatBinary(g_fatbin_handle);
  ++g_calls;

  printf("PID %ld\n", (long)getpid());
  printf("EXPECT api_calls=%ld kernels=%ld copies=%ld errors=%ld\n", g_calls, g_kernels, g_copies,
         g_errors);
  printf("END\n");
  return 0;
}
