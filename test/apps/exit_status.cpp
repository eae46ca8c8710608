// Makes a few HIP calls, then exits with the status it is given, so the e2e tests can check that
// prof passes the status through. Usage: exit_status STATUS [MARKER]; with MARKER it first creates
// that file, which tells a test whether the program ran at all.
#include <cstdio>
#include <cstdlib>

#include "hip_calls.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: exit_status STATUS [MARKER]\n");
    return 2;
  }
  if (argc > 2) {
    std::FILE* marker = std::fopen(argv[2], "w");
    if (marker != nullptr) std::fclose(marker);
  }
  int count = 0;
  PROF_HIP(hipGetDeviceCount(&count));
  PROF_HIP(hipSetDevice(0));
  void* buffer = nullptr;
  PROF_HIP(hipMalloc(&buffer, 4096));
  PROF_HIP(hipMemset(buffer, 0, 4096));
  PROF_HIP(hipFree(buffer));
  std::printf("EXPECT api_calls=%ld kernels=0 copies=1\n", samples::g_api_calls);
  std::fflush(stdout);
  std::exit(std::atoi(argv[1]));
}
