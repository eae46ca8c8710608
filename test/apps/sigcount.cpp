// Counts the SIGINTs and SIGTERMs it receives, like a program whose handler means "press twice
// to force quit". A thread takes them with sigwaitinfo as they arrive, so a duplicate that comes
// a few microseconds after the first is seen rather than merged with it. It makes a HIP call,
// prints READY, and after the first signal waits 300 ms more, then prints the counts, exits 0.
//
// It also defines pthread_create (exported: ENABLE_EXPORTS), which every library in the process
// then calls, prof's and the simulated runtime's included: a thread created while SIGINT or
// SIGTERM is deliverable in its creator could take the signal the program blocked to sigwait it
// before it had blocked it itself (a window seen in CI). It prints how many threads were created
// and how many of them were born able to take those signals.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>

#include "hip_calls.hpp"

namespace {
std::atomic<int> g_created{0};
std::atomic<int> g_born_unquiet{0};
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

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                              void* arg) {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const Create real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);  // the mask the new thread inherits
  g_created.fetch_add(1);
  if (!sigismember(&mask, SIGINT) || !sigismember(&mask, SIGTERM)) g_born_unquiet.fetch_add(1);
  return real(thread, attr, start, arg);
}

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
  std::printf("THREADS %d BORN_UNQUIET %d\n", g_created.load(), g_born_unquiet.load());
  std::printf("SIGINT %d SIGTERM %d\n", g_sigint.load(), g_sigterm.load());
  std::printf("EXPECT api_calls=%ld kernels=0 copies=0\n", samples::g_api_calls);
  std::printf("END\n");
  return 0;
}
