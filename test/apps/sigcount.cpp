// Counts the SIGINTs and SIGTERMs it receives, like a program whose handler means "press twice
// to force quit". A thread takes them with sigwaitinfo as they arrive, so a duplicate that comes
// a few microseconds after the first is seen rather than merged with it. It makes a HIP call,
// prints READY, and after the first signal waits 300 ms more, then prints the counts, exits 0.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>

#include "hip_calls.hpp"

namespace {
std::atomic<int> g_sigint{0};
std::atomic<int> g_sigterm{0};

void* take_signals(void* arg) {
  const sigset_t* set = static_cast<const sigset_t*>(arg);
  const timespec settle{0, 300000000};
  siginfo_t info;
  if (sigwaitinfo(set, &info) < 0) return nullptr;
  for (;;) {
    (info.si_signo == SIGINT ? g_sigint : g_sigterm).fetch_add(1);
    if (sigtimedwait(set, &info, &settle) < 0) return nullptr;
  }
}
}  // namespace

int main() {
  // Blocked before any thread exists (the runtime's too), so only the waiter takes them.
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  pthread_t waiter;
  pthread_create(&waiter, nullptr, take_signals, &set);
  int count = 0;
  PROF_HIP(hipGetDeviceCount(&count));
  std::printf("READY\n");
  std::fflush(stdout);
  pthread_join(waiter, nullptr);
  std::printf("SIGINT %d SIGTERM %d\n", g_sigint.load(), g_sigterm.load());
  std::printf("EXPECT api_calls=%ld kernels=0 copies=0\n", samples::g_api_calls);
  std::printf("END\n");
  return 0;
}
