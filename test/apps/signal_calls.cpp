// HIP calls from a signal handler that interrupts a HIP call (issue 42): each round, a helper
// thread waits until the main thread sleeps inside hipStreamSynchronize on a 100 ms kernel (its
// state in /proc: blocked in the real call, so inside prof's hook), then sends it SIGUSR1, whose
// handler calls hipGetDevice. prof cannot record such a call (the interrupted hook's ring is
// mid-write) and must count it. Prints `PID n`, `EXPECT api_calls=N handler_calls=H` and `END`.
// Usage: signal_calls [ROUNDS]
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void long_kernel(float* out) {
  if (out) *out = 1;
}

namespace {
std::atomic<long> g_handler_calls{0};
std::atomic<bool> g_syncing{false};

void on_usr1(int) {
  int device = -1;
  (void)hipGetDevice(&device);  // counted below, not through PROF_HIP (one counter, two contexts)
  g_handler_calls.fetch_add(1);
}

// Whether thread `tid` of this process is asleep (state S) in the kernel.
bool sleeping(long tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  std::FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char line[512] = {};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* close_paren = read ? std::strrchr(line, ')') : nullptr;
  return close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  std::printf("PID %d\n", static_cast<int>(getpid()));
  struct sigaction action {};
  action.sa_handler = on_usr1;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, nullptr);
  const long main_tid = syscall(SYS_gettid);
  const pthread_t main_thread = pthread_self();
  hipStream_t stream = nullptr;
  PROF_HIP(hipStreamCreate(&stream));
  for (int round = 0; round < rounds; ++round) {
    std::thread sender([&] {
      while (!g_syncing.load()) std::this_thread::yield();
      while (g_syncing.load() && !sleeping(main_tid)) std::this_thread::yield();
      const long before = g_handler_calls.load();
      pthread_kill(main_thread, SIGUSR1);
      while (g_handler_calls.load() == before) std::this_thread::yield();
    });
    // 0.25 ns per thread: 400M threads, 100 ms on the simulated device.
    PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(long_kernel), dim3(390625), dim3(1024),
                             nullptr, 0, stream));
    g_syncing.store(true);
    PROF_HIP(hipStreamSynchronize(stream));
    sender.join();
    g_syncing.store(false);
  }
  PROF_HIP(hipStreamDestroy(stream));
  std::printf("EXPECT api_calls=%ld handler_calls=%ld\n",
              samples::g_api_calls + g_handler_calls.load(), g_handler_calls.load());
  std::printf("END\n");
  return 0;
}
