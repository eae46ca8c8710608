/* Launches the kernel test/apps/early_register_lib.c registered in its constructor (before main
   and before prof's own constructor): prints `PID n`, `EXPECT api_calls=N kernels=1` and `END`.
       build/bin/prof --sim build/test-bin/early_register */
#include <stdio.h>
#include <unistd.h>

typedef int hipError_t;
typedef void* hipStream_t;
hipError_t hipStreamCreate(hipStream_t* stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipFree(void* ptr);

extern long early_calls;
extern void* early_buffer;
hipError_t early_launch(hipStream_t stream);

int main(void) {
  printf("PID %d\n", (int)getpid());
  hipStream_t stream = NULL;
  if (hipStreamCreate(&stream) || early_launch(stream) || hipStreamSynchronize(stream) ||
      hipFree(early_buffer) || hipStreamDestroy(stream)) {
    printf("FAILED\n");
    return 1;
  }
  printf("EXPECT api_calls=%ld kernels=1\n", early_calls + 5);
  printf("END\n");
  return 0;
}
