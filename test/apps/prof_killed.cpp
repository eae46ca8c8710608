// Makes a known number of HIP calls in two phases, and between them waits for a line on stdin:
// the fault suite kills prof there (test/e2e/test_recover.py), and the calls of both phases must
// reach the database that `prof --recover` builds.
// Usage: prof_killed CALLS_BEFORE CALLS_AFTER. Prints "READY <pid>" after the first phase and
// "EXPECT api_calls=N" at the end.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

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
  if (!query(stream, after)) return 1;
  PROF_HIP(hipStreamDestroy(stream));
  // hipStreamCreate, the queries, hipStreamDestroy.
  std::printf("EXPECT api_calls=%ld\n", before + after + 2);
  return 0;
}
