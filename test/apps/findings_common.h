/* Shared by the findings samples (findings_hip.cpp, findings_musa.c, findings_cnrt.c,
   findings_acl.c; e2e:findings): the host clock the phases print, a host computation that lasts at
   least a given time, and the launch sizes that give a kernel a device duration on the simulator.

   The clock is CLOCK_MONOTONIC, prof's own (common/clock.hpp): the `PHASE name begin_ns end_ns`
   lines the samples print compare directly with api_calls.begin_ns. The host computation is bounded
   by that clock, not by an iteration count, so a loaded machine makes it no shorter: the device gap
   around it is at least its length, whatever the load. */
#ifndef PROF_TEST_APPS_FINDINGS_COMMON_H
#define PROF_TEST_APPS_FINDINGS_COMMON_H

#include <stdio.h>
#include <time.h>

static inline long long findings_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Arithmetic on the host, with no runtime call, for at least `ns` of the clock; returns a value
   that depends on every step so the loop is not optimised away. */
static inline double findings_host_compute(long long ns) {
  const long long end = findings_now_ns() + ns;
  double x = 1.0;
  do {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  } while (findings_now_ns() < end);
  return x;
}

/* The simulated device times a kernel of T threads (or tasks x cores, or blocks of one thread) as
   5000 + T / 4 ns (docs/sim.md, "Durations"): the T that makes a kernel last `ns`. */
static inline unsigned long long findings_threads_for_ns(long long ns) {
  return (unsigned long long)(ns - 5000) * 4ULL;
}

/* One phase's window on the host clock, for the test to place each finding's calls. */
static inline void findings_print_phase(const char* name, long long begin_ns, long long end_ns) {
  printf("PHASE %s %lld %lld\n", name, begin_ns, end_ns);
}

/* Each phase's sizes, shared by the four samples where they do the same thing. */
enum {
  kFindingsBlockingRounds = 12,       /* blocking upload + download pairs */
  kFindingsBlockingBytes = 512 << 10, /* 512 KiB: no small copy */
  kFindingsWaitedLaunches = 15,       /* >= 10 for sync-after-launch, < 20 for launch-bound */
  kFindingsWaitedKernelNs = 200000,   /* 200 us */
  kFindingsWaitedHostNs = 300000,     /* 300 us of host work on each result: the device idles */
  kFindingsIdleKernelNs = 1000000,    /* 1 ms on each side of the gap */
};
/* 40 ms of host computation: the device gap's lower bound. */
#define FINDINGS_IDLE_HOST_NS 40000000LL

#endif
