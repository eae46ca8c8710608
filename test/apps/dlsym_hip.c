/* HIP reached only through dlopen + dlsym, as Triton's driver, ctypes and many Python frameworks
   reach it: the program links nothing but libc (and libdl), opens libamdhip64.so.5 and looks up
   every function by name. argv[1] chooses how:
     local     dlopen(RTLD_NOW | RTLD_LOCAL), dlsym(handle, name)
     deepbind  dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND), dlsym(handle, name)
     dlvsym    dlopen(RTLD_NOW | RTLD_LOCAL), dlvsym(handle, name, "hip_4.2")
   It registers a kernel as hipcc's constructor does, launches it on a stream, copies both ways and
   sets memory; prints `PID n`, `EXPECT api_calls=N kernels=1 copies=3` and `END`.

       LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/dlsym_hip local
       build/bin/prof --sim build/test-bin/dlsym_hip local */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int hipError_t;
typedef void* hipStream_t;
typedef struct {
  uint32_t x, y, z;
} dim3;

static long g_calls;
static void* g_lib;
static const char* g_mode;

static void* find(const char* name) {
  void* p = strcmp(g_mode, "dlvsym") == 0 ? dlvsym(g_lib, name, "hip_4.2") : dlsym(g_lib, name);
  if (p == NULL) {
    printf("FAILED lookup %s: %s\n", name, dlerror());
    exit(1);
  }
  return p;
}

#define CALL(expr)                               \
  do {                                           \
    hipError_t e_ = (expr);                      \
    ++g_calls;                                   \
    if (e_ != 0) {                               \
      printf("FAILED %s: %d\n", #expr, (int)e_); \
      exit(1);                                   \
    }                                            \
  } while (0)

__attribute__((noinline, used)) void dlsym_kernel_stub(float* x, int n) {
  (void)x, (void)n;
  __asm__ volatile("" ::: "memory");
}

struct FatbinWrapper {
  unsigned magic, version;
  const void* binary;
  const void* dummy;
};
static const struct FatbinWrapper kFatbin = {0x48495046u, 1, NULL, NULL};
static char g_device_name[] = "_Z12dlsym_kernelPfi";

int main(int argc, char** argv) {
  g_mode = argc > 1 ? argv[1] : "local";
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (strcmp(g_mode, "deepbind") == 0) flags |= RTLD_DEEPBIND;
  printf("PID %d\n", (int)getpid());
  g_lib = dlopen("libamdhip64.so.5", flags);
  if (g_lib == NULL) {
    printf("FAILED dlopen: %s\n", dlerror());
    return 1;
  }
  void** (*register_fatbin)(const void*) = find("__hipRegisterFatBinary");
  void (*register_function)(void**, const void*, char*, const char*, unsigned, void*, void*, void*,
                            void*, int*) = find("__hipRegisterFunction");
  hipError_t (*stream_create)(hipStream_t*) = find("hipStreamCreate");
  hipError_t (*stream_destroy)(hipStream_t) = find("hipStreamDestroy");
  hipError_t (*stream_sync)(hipStream_t) = find("hipStreamSynchronize");
  hipError_t (*malloc_fn)(void**, size_t) = find("hipMalloc");
  hipError_t (*free_fn)(void*) = find("hipFree");
  hipError_t (*memcpy_async)(void*, const void*, size_t, int, hipStream_t) = find("hipMemcpyAsync");
  hipError_t (*memset_async)(void*, int, size_t, hipStream_t) = find("hipMemsetAsync");
  hipError_t (*launch)(const void*, dim3, dim3, void**, size_t, hipStream_t) =
      find("hipLaunchKernel");

  void** module = register_fatbin(&kFatbin);
  ++g_calls;
  register_function(module, (const void*)dlsym_kernel_stub, g_device_name, g_device_name,
                    (unsigned)-1, NULL, NULL, NULL, NULL, NULL);
  ++g_calls;
  enum { kCount = 1 << 16 };
  float* host = calloc(kCount, sizeof(float));
  void* device = NULL;
  hipStream_t stream = NULL;
  CALL(stream_create(&stream));
  CALL(malloc_fn(&device, kCount * sizeof(float)));
  CALL(memcpy_async(device, host, kCount * sizeof(float), 1 /* hipMemcpyHostToDevice */, stream));
  int n = kCount;
  void* args[] = {&device, &n};
  dim3 grid = {kCount / 256, 1, 1}, block = {256, 1, 1};
  CALL(launch((const void*)dlsym_kernel_stub, grid, block, args, 0, stream));
  CALL(memset_async(device, 0, kCount * sizeof(float), stream));
  CALL(memcpy_async(host, device, kCount * sizeof(float), 2 /* hipMemcpyDeviceToHost */, stream));
  CALL(stream_sync(stream));
  CALL(free_fn(device));
  CALL(stream_destroy(stream));
  free(host);
  printf("EXPECT api_calls=%ld kernels=1 copies=3\n", g_calls);
  printf("END\n");
  return 0;
}
