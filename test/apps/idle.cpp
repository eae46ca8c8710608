// An idle program under prof (test/e2e/test_idle.py): it times some work, sleeps with nothing in
// flight and counts the context switches its process made meanwhile (every thread: its own, the
// simulated device's, prof's), then launches a burst of kernels back to back and waits for them.
// A profiler that polls while the program idles shows up in the count; one that sleeps too deeply
// to notice the burst loses the burst's device times. Prints `IDLE_SWITCHES n` and the EXPECT line.
// Usage: idle [sleep_ms] [burst]
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void tick(float* out) {
  if (out) *out = 1;
}

namespace {

long switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // summed over the process's threads
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

void launch(hipStream_t s, long& kernels) {
  PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(tick), dim3(1), dim3(32), nullptr, 0, s));
  ++kernels;
}

}  // namespace

int main(int argc, char** argv) {
  const long sleep_ms = argc > 1 ? std::atol(argv[1]) : 500;
  const long burst = argc > 2 ? std::atol(argv[2]) : 20000;
  hipStream_t s = nullptr;
  long kernels = 0;
  PROF_HIP(hipStreamCreate(&s));
  for (int i = 0; i < 100; ++i) launch(s, kernels);
  PROF_HIP(hipStreamSynchronize(s));
  // Settle first: whatever was in flight is harvested and every poller has backed off.
  const timespec settle{0, 200'000'000};
  nanosleep(&settle, nullptr);
  const long before = switches();
  const timespec idle{sleep_ms / 1000, (sleep_ms % 1000) * 1'000'000};
  nanosleep(&idle, nullptr);
  const long idle_switches = switches() - before;
  for (long i = 0; i < burst; ++i) launch(s, kernels);
  PROF_HIP(hipStreamSynchronize(s));
  PROF_HIP(hipStreamDestroy(s));
  std::printf("IDLE_SWITCHES %ld\n", idle_switches);
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=0\n", samples::g_api_calls, kernels);
  return 0;
}
