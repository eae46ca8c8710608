// HeCBench `collision` in small (issue 42): kernels and copies on two streams, every one of them
// finished by a blocking call that returned (a synchronize, a blocking hipMemcpy, a blocking
// hipMemcpyFromSymbol of a device global), then the program ends as MODE says, at once after its
// last blocking call. test/e2e/test_abort_times.py checks that every op keeps its device time.
// Usage: abort_times MODE
//   abort (std::abort) assert (a failed assert) segv (raise(SIGSEGV)) fault (a store to a bad
//   address) exit3 (_exit(3)) thread_exit (exit(4) from a non-main thread while main waits)
//   thread_pthread_exit (the work on a thread that calls pthread_exit; then main aborts)
//   return0 (main returns: the ordinary ending, for comparison)
// It prints `PID n` and `EXPECT api_calls=N kernels=K copies=C` before it ends.
#undef NDEBUG  // the assert must fire in a release build too
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void collide(float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = 0.0f;
}
__attribute__((noinline, used)) void stream_step(float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = 1.0f;
}

// A device global as hipcc registers one: the host shadow's address names it.
float g_totals_shadow[256];
static char g_totals_name[] = "g_totals";

extern "C" void** __hipRegisterFatBinary(const void* data);
extern "C" void __hipRegisterVar(void** modules, void* var, char* hostVar, char* deviceVar, int ext,
                                 size_t size, int constant, int global);

namespace {

struct FatbinWrapper {
  unsigned magic, version;
  const void* binary;
  const void* dummy;
};
const FatbinWrapper kFatbin = {0x48495046u, 1, nullptr, nullptr};

constexpr int kElements = 1 << 16;
constexpr size_t kBytes = sizeof(float) * kElements;
long g_kernels = 0, g_copies = 0;

// Not null: a store through null is caught by UBSan before it faults; this address faults the
// same way in every build.
volatile uintptr_t g_bad_address = 64;

void launch(const void* kernel, float* out, hipStream_t stream) {
  int n = kElements;
  void* args[] = {&out, &n};
  PROF_HIP(hipLaunchKernel(kernel, dim3{kElements / 256, 1, 1}, dim3{256, 1, 1}, args, 0, stream));
  ++g_kernels;
}

// The collision pattern: an upload, kernels and async copies on two streams, synchronizes, and
// blocking copies (one from a device global) as the last device calls before the end.
void work() {
  hipStream_t streams[2];
  PROF_HIP(hipStreamCreate(&streams[0]));
  PROF_HIP(hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking));
  static float host[2][kElements];
  float* device[2];
  for (auto& d : device) PROF_HIP(hipMalloc(reinterpret_cast<void**>(&d), kBytes));
  PROF_HIP(hipMemcpy(device[0], host[0], kBytes, hipMemcpyHostToDevice));
  ++g_copies;
  for (int s = 0; s < 2; ++s) {
    PROF_HIP(hipMemcpyAsync(device[s], host[s], kBytes, hipMemcpyHostToDevice, streams[s]));
    ++g_copies;
    launch(reinterpret_cast<const void*>(s == 0 ? &collide : &stream_step), device[s], streams[s]);
    PROF_HIP(hipMemcpyAsync(host[s], device[s], kBytes, hipMemcpyDeviceToHost, streams[s]));
    ++g_copies;
  }
  PROF_HIP(hipStreamSynchronize(streams[1]));
  PROF_HIP(hipStreamSynchronize(streams[0]));
  launch(reinterpret_cast<const void*>(&collide), device[0], nullptr);
  PROF_HIP(hipDeviceSynchronize());
  PROF_HIP(hipMemcpy(host[1], device[1], kBytes, hipMemcpyDeviceToHost));
  ++g_copies;
  PROF_HIP(hipMemcpyFromSymbol(host[0], static_cast<const void*>(g_totals_shadow),
                               sizeof g_totals_shadow, 0, hipMemcpyDeviceToHost));
  PROF_HIP(hipMemcpyFromSymbol(host[1], static_cast<const void*>(g_totals_shadow),
                               sizeof g_totals_shadow, 0, hipMemcpyDeviceToHost));
  g_copies += 2;
}

void announce() {
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=%ld\n", samples::g_api_calls, g_kernels,
              g_copies);
  std::fflush(stdout);
}

void* exit_from_thread(void*) {
  work();
  announce();
  std::exit(4);
}

void* work_then_pthread_exit(void*) {
  work();
  pthread_exit(nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: abort_times MODE\n");
    return 2;
  }
  const std::string mode = argv[1];
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::fflush(stdout);
  void** module_handle = (++samples::g_api_calls, __hipRegisterFatBinary(&kFatbin));
  (++samples::g_api_calls, __hipRegisterVar(module_handle, g_totals_shadow, g_totals_name,
                                            g_totals_name, 0, sizeof g_totals_shadow, 0, 0));
  PROF_HIP(hipSetDevice(0));
  if (mode == "thread_exit" || mode == "thread_pthread_exit") {
    pthread_t thread;
    if (pthread_create(&thread, nullptr,
                       mode == "thread_exit" ? exit_from_thread : work_then_pthread_exit,
                       nullptr) != 0)
      return 2;
    pthread_join(thread, nullptr);  // thread_exit: the process ends while main waits here
    announce();
    std::abort();
  }
  work();
  announce();
  if (mode == "abort") std::abort();
  if (mode == "assert") assert(g_kernels == 0 && "the collision check failed");
  if (mode == "segv") raise(SIGSEGV);
  if (mode == "fault") *reinterpret_cast<volatile int*>(g_bad_address) = 1;
  if (mode == "exit3") _exit(3);
  return 0;
}
