#include "interpose/abrupt_end.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "interpose/device_timing.hpp"

namespace prof::interpose {
namespace {

// Signals a program raises on itself by its own error. Not SIGTRAP or SIGSYS (a handler that
// returns from them resumes the program: a debugger's breakpoint, seccomp's trap), not the
// signals others send (SIGTERM, SIGINT: the program's to take or leave, and prof forwards them).
constexpr int kEndSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};

// Only async-signal-safe calls. The default is restored before the signal is raised again: it
// stays blocked until this handler returns and is then delivered with the default action, so the
// program dies by it, with the same status and core as without prof. A fault the kernel raised
// (a bad store) would also recur when the handler returns; raising it anyway ends the program on
// the same signal either way, and a signal that was sent (abort, raise, kill) needs it.
void on_end_signal(int sig) {
  const int saved_errno = errno;
  timing_harvest_before_end();
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(sig, &fallback, nullptr);
  raise(sig);
  errno = saved_errno;
}

}  // namespace

void install_end_handlers() noexcept {
  for (int sig : kEndSignals) {
    struct sigaction current = {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
      continue;  // the program's own
    struct sigaction ours = {};
    ours.sa_handler = on_end_signal;
    sigfillset(
        &ours.sa_mask);  // one at a time: a second fatal signal waits for the first to end us
    // On the program's alternate stack if it has one (a stack overflow's SIGSEGV); without one such
    // a handler cannot run and the kernel ends the program by SIGSEGV, as it would have.
    ours.sa_flags = SA_ONSTACK;
    sigaction(sig, &ours, nullptr);
  }
}

}  // namespace prof::interpose

// _exit and _Exit end the process without exit handlers: the harvester first harvests what has
// completed, then the process exits as glibc's _exit does (exit_group). Async-signal-safe, as
// _exit must be (a program's signal handler may call it). exit() reaches glibc's own _exit
// directly, after prof's atexit handler has stopped the harvester (lifecycle.cpp).
extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  prof::interpose::timing_harvest_before_end();
  for (;;) syscall(SYS_exit_group, status);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  prof::interpose::timing_harvest_before_end();
  for (;;) syscall(SYS_exit_group, status);
}
