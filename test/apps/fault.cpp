// The fault suite's program (test/e2e/test_faults.py): THREADS threads each make CALLS cheap HIP
// calls (hipStreamQuery on the null stream) and one kernel launch, then the program does what
// MODE says. Usage: fault MODE [threads=8] [calls=25000]
//
// It prints `PID n` and `EXPECT api_calls=N kernels=K copies=0` before any HIP call, so the count
// is known even when the program never returns. Messages from its own handlers go through
// write(2), which is async-signal-safe.
//
// Modes that end the program after the calls:
//   exit0 exit5 (_exit) segv abort sigterm exception thread_exit (exit(3) from a non-main thread)
//   segv_handler sigterm_handler (own handlers that announce themselves, then die by the signal)
//   wait (prints READY and waits to be signalled from outside)
// Modes that change the process before the calls, then exit 0:
//   closefds (closes every descriptor) chdir (to /) unsetenv (LD_PRELOAD, PROF_RUN_DIR) setsid
//   runfiles (prints each file of PROF_RUN_DIR with its mode after the calls)
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void fault_kernel(int* out) {
  if (out) *out = 1;
}

namespace {

void say(const char* text) {
  ssize_t ignored = write(STDOUT_FILENO, text, strlen(text));
  (void)ignored;
}

void on_exit_message() { say("atexit handler ran\n"); }

void own_handler(int sig) {
  say(sig == SIGSEGV ? "own SIGSEGV handler ran\n" : "own SIGTERM handler ran\n");
  signal(sig, SIG_DFL);
  raise(sig);
}

void query() {
  const hipError_t result = hipStreamQuery(nullptr);
  if (result != hipSuccess && result != hipErrorNotReady) std::abort();
}

void worker(long calls, long* made) {
  if (calls >= 0) {
    for (long i = 0; i < calls; ++i) query();
    *made = calls;
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(-calls);
    long n = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      for (int i = 0; i < 256; ++i) query();
      n += 256;
    }
    *made = n;
  }
  int* arg = nullptr;
  void* args[] = {&arg};
  const dim3 grid{1, 1, 1};
  const dim3 block{64, 1, 1};
  if (hipLaunchKernel(reinterpret_cast<const void*>(&fault_kernel), grid, block, args, 0,
                      nullptr) != hipSuccess)
    std::abort();
}

void list_run_files() {
  const char* dir = getenv("PROF_RUN_DIR");
  std::printf("RUNDIR %s\n", dir ? dir : "");
  if (!dir) return;
  if (DIR* d = opendir(dir)) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      struct stat st;
      std::string path = std::string(dir) + "/" + e->d_name;
      if (lstat(path.c_str(), &st) == 0)
        std::printf("RUNFILE %s %o\n", e->d_name, static_cast<unsigned>(st.st_mode & 07777));
    }
    closedir(d);
  }
}

// Not null: a store through null is caught by UBSan before it faults; this address faults the
// same way in every build.
volatile uintptr_t g_bad_address = 64;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fault MODE [threads=8] [calls=25000]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 8;
  const long calls = argc > 3 ? std::atol(argv[3]) : 25000;
  // hipSetDevice, then per thread: the queries and one launch.
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  if (calls >= 0)
    std::printf("EXPECT api_calls=%ld kernels=%d copies=0\n", 1 + threads * (calls + 1), threads);
  std::fflush(stdout);
  atexit(on_exit_message);
  if (mode == "segv_handler") signal(SIGSEGV, own_handler);
  if (mode == "sigterm_handler") signal(SIGTERM, own_handler);

  if (mode == "closefds") {
    for (int fd = 0; fd < 1024; ++fd) close(fd);
  } else if (mode == "chdir") {
    if (chdir("/") != 0) return 2;
  } else if (mode == "unsetenv") {
    unsetenv("LD_PRELOAD");
    unsetenv("PROF_RUN_DIR");
  } else if (mode == "setsid") {
    if (setsid() < 0) return 2;
  }

  if (hipSetDevice(0) != hipSuccess) return 2;
  std::vector<std::thread> pool;
  std::vector<long> made(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, calls, &made[static_cast<size_t>(t)]);
  for (auto& t : pool) t.join();
  if (calls < 0) {
    long total = 1;
    for (long m : made) total += m + 1;
    std::printf("COUNTED api_calls=%ld kernels=%d\n", total, threads);
  }

  if (mode == "exit5") _exit(5);
  if (mode == "segv" || mode == "segv_handler") *reinterpret_cast<volatile int*>(g_bad_address) = 1;
  if (mode == "abort") std::abort();
  if (mode == "sigterm" || mode == "sigterm_handler") raise(SIGTERM);
  if (mode == "exception") throw std::runtime_error("fault: uncaught on purpose");
  if (mode == "thread_exit") {
    std::thread([] { std::exit(3); }).detach();
    for (;;) pause();
  }
  if (mode == "wait") {
    say("READY\n");
    for (;;) pause();
  }
  if (mode == "runfiles") list_run_files();
  std::fflush(stdout);
  return 0;
}
