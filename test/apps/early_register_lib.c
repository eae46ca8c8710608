/* A library whose constructor registers its kernel and allocates device memory, as a library
   built by hipcc (or a framework's extension) does when it is loaded: those calls come before
   main, and before prof's own constructor when the dynamic linker initialises this library
   first (it is a dependency of the program, prof's library only preloaded). prof must record
   them all the same (issue 42). Used by test/apps/early_register.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int hipError_t;
typedef void* hipStream_t;
typedef struct {
  uint32_t x, y, z;
} dim3;

void** __hipRegisterFatBinary(const void* data);
void __hipRegisterFunction(void** modules, const void* host_function, char* device_function,
                           const char* device_name, unsigned int thread_limit, void* tid, void* bid,
                           dim3* block_dim, dim3* grid_dim, int* w_size);
hipError_t hipMalloc(void** ptr, size_t size);
hipError_t hipLaunchKernel(const void* function_address, dim3 grid, dim3 block, void** args,
                           size_t shared_bytes, hipStream_t stream);

long early_calls; /* the calls the constructor made, for the program's EXPECT line */
void* early_buffer;

__attribute__((noinline, used)) void early_kernel_stub(float* x, int n) {
  (void)x, (void)n;
  __asm__ volatile("" ::: "memory");
}

struct FatbinWrapper {
  unsigned magic, version;
  const void* binary;
  const void* dummy;
};
static const struct FatbinWrapper kFatbin = {0x48495046u, 1, NULL, NULL};
static char g_device_name[] = "_Z12early_kernelPfi";

__attribute__((constructor)) static void early_register(void) {
  void** module = __hipRegisterFatBinary(&kFatbin);
  __hipRegisterFunction(module, (const void*)early_kernel_stub, g_device_name, g_device_name,
                        (unsigned)-1, NULL, NULL, NULL, NULL, NULL);
  if (hipMalloc(&early_buffer, 1 << 16) != 0) {
    printf("FAILED hipMalloc in a constructor\n");
    exit(1);
  }
  early_calls = 3;
}

hipError_t early_launch(hipStream_t stream) {
  int n = 1 << 14;
  void* args[] = {&early_buffer, &n};
  dim3 grid = {64, 1, 1}, block = {256, 1, 1};
  return hipLaunchKernel((const void*)early_kernel_stub, grid, block, args, 0, stream);
}
