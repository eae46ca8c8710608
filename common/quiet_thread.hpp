// A thread that prof or the simulated device starts inside someone else's process takes none of
// that process's asynchronous signals: a process-directed signal (kill, a terminal's Ctrl-C, a
// group signal) goes to any thread that does not block it, and one of ours taking it would run
// the program's default action (SIGTERM: the whole process ends) where the program had blocked it
// to take it with sigwait, or run the program's handler on a thread it never expected.
//
// A thread inherits its creator's mask, so the mask must be in place before pthread_create: a
// thread that blocks signals as its first act leaves a window in which it can still take one
// (seen in e2e:signals under ASan). Hold one of these around the creation.
// Synchronous signals (faults) stay deliverable: they are the thread's own.
#pragma once
#include <pthread.h>
#include <signal.h>

namespace prof {

class BlockAsyncSignals {
 public:
  BlockAsyncSignals() noexcept {
    sigset_t async;
    sigfillset(&async);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT})
      sigdelset(&async, sig);
    pthread_sigmask(SIG_BLOCK, &async, &previous_);
  }
  ~BlockAsyncSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  BlockAsyncSignals(const BlockAsyncSignals&) = delete;
  BlockAsyncSignals& operator=(const BlockAsyncSignals&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace prof
