// Makes a known number of HIP calls in two phases, and between them waits for a line on stdin:
// the fault suite kills prof there (test/e2e/test_recover.py), and the calls of both phases must
// reach the database that `prof --recover` builds.
// Usage: prof_killed CALLS_BEFORE CALLS_AFTER [THREADS]. Prints "READY <pid>" after the first
// phase and "EXPECT api_calls=N phase2_ns=T" at the end (T: the second phase's own duration, which
// scripts/bench.sh --only afterdeath reads). With THREADS, the second phase runs on that many
// threads, each making CALLS_AFTER calls as fast as it can.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "hip_calls.hpp"

namespace {
bool query(hipStream_t stream, long calls) {
  for (long i = 0; i < calls; ++i) {
    const hipError_t result = PROF_HIP_RESULT(hipStreamQuery(stream));
    if (result != hipSuccess && result != hipErrorNotReady) return false;
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  const long before = argc > 1 ? std::atol(argv[1]) : 1000;
  const long after = argc > 2 ? std::atol(argv[2]) : 1000;
  hipStream_t stream = nullptr;
  PROF_HIP(hipStreamCreate(&stream));
  if (!query(stream, before)) return 1;
  std::printf("READY %ld\n", static_cast<long>(getpid()));
  std::fflush(stdout);
  std::string line;
  std::getline(std::cin, line);
  const long threads = argc > 3 ? std::atol(argv[3]) : 1;
  const auto phase2 = std::chrono::steady_clock::now();
  if (threads <= 1) {
    if (!query(stream, after)) return 1;
  } else {
    std::atomic<bool> ok{true};
    std::vector<std::thread> workers;
    for (long t = 0; t < threads; ++t)
      workers.emplace_back([&] {
        for (long i = 0; i < after;
             ++i) {  // (not counted through samples::g_api_calls: one counter, many threads)
          const hipError_t result = hipStreamQuery(stream);
          if (result != hipSuccess && result != hipErrorNotReady) ok = false;
        }
      });
    for (std::thread& w : workers) w.join();
    if (!ok) return 1;
  }
  const long long phase2_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - phase2)
                                  .count();
  PROF_HIP(hipStreamDestroy(stream));
  // hipStreamCreate, the queries, hipStreamDestroy.
  std::printf("EXPECT api_calls=%ld phase2_ns=%lld\n",
              before + (threads > 1 ? threads : 1) * after + 2, phase2_ns);
  return 0;
}
