// Processes that outlive the program prof launched.
//   daemon N PIDFILE   forks, and the child double-forks with setsid; the grandchild (a daemon)
//                      writes its pid to PIDFILE, waits 300 ms (its parents have exited by then)
//                      and makes N HIP calls. The launched process exits at once.
//   linger SECONDS PIDFILE  forks a child that makes HIP calls (100 a millisecond) for SECONDS and
//                      exits at once.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "hip_calls.hpp"

namespace {

void write_pid(const char* path) {
  char tmp[4096];
  std::snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (std::FILE* f = std::fopen(tmp, "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(getpid()));
    std::fclose(f);
    std::rename(tmp, path);  // the test never reads half a pid
  }
}

void calls(long n) {
  int count = 0;
  for (long i = 0; i < n; ++i) PROF_HIP(hipGetDeviceCount(&count));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: daemon daemon N PIDFILE | daemon linger SECONDS PIDFILE\n");
    return 2;
  }
  const long n = std::atol(argv[2]);
  std::fflush(stdout);
  if (std::strcmp(argv[1], "daemon") == 0) {
    pid_t child = fork();
    if (child < 0) return 1;
    if (child > 0) {
      waitpid(child, nullptr, 0);  // the intermediate exits at once
      return 0;
    }
    setsid();
    if (fork() != 0) _exit(0);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2);
    write_pid(argv[3]);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    calls(n);
    return 0;
  }
  if (std::strcmp(argv[1], "linger") == 0) {
    if (fork() != 0) return 0;
    int devnull = open("/dev/null",
                       O_RDWR);  // leaves the launcher's pipes, as a background job's output would
    dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2);
    write_pid(argv[3]);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(n);
    // About 100k calls a second: a process that keeps working, not a flood whose reports would
    // dominate the test's timing of --wait-timeout.
    while (std::chrono::steady_clock::now() < end) {
      calls(100);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return 0;
  }
  return 2;
}
