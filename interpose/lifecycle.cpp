// Start-up, fork and exit of a profiled process. Nothing here runs per call.
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common/clock.hpp"
#include "interpose/capture.hpp"
#include "interpose/config.hpp"
#include "interpose/hook_clock.hpp"
#include "interpose/device_timing.hpp"
#include "interpose/process_files.hpp"
#include "interpose/thread_buffer.hpp"

namespace prof::interpose {

Config g_config;

namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long x = strtoull(v, &end, 10);
  return (end && *end == '\0') ? x : fallback;
}

bool list_has(const char* list, const char* name) {
  const size_t n = strlen(name);
  for (const char* p = list; *p;) {
    const char* comma = strchr(p, ',');
    const size_t len = comma ? static_cast<size_t>(comma - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return true;
    if (!comma) break;
    p = comma + 1;
  }
  return false;
}

void on_exit_handler() {
  note_process_exit(now_ns());
  timing_shutdown();
  write_maps_snapshot();
  ThreadBuffer::close_all();
}

void on_fork_child() {
  hook_clock_after_fork();
  g_config.image_token = now_ns();
  g_config.start_ppid = static_cast<int>(getppid());
  ThreadBuffer::reset_after_fork();
  announce_after_fork();  // the child's files, when it records (a fork-exec child never does)
  timing_after_fork_child();
  capture_after_fork_child();
}

}  // namespace

void load_config() noexcept {
  const char* dir = getenv("PROF_RUN_DIR");
  struct stat st;
  if (!dir || strlen(dir) >= sizeof(g_config.run_dir) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    g_config.enabled = false;  // not launched by prof (or the run is over): pass everything through
    return;
  }
  strcpy(g_config.run_dir, dir);
  const char* fallback = getenv("PROF_RUN_DIR_FALLBACK");
  if (fallback && strlen(fallback) < sizeof(g_config.run_dir_fallback) && stat(fallback, &st) == 0 && S_ISDIR(st.st_mode))
    strcpy(g_config.run_dir_fallback, fallback);
  g_config.device_timing = env_u64("PROF_DEVICE_TIMING", 1) != 0;
  // A comma-separated list of runtime names; unset means every runtime.
  const char* runtimes = getenv("PROF_RUNTIMES");
  for (size_t i = 0; i < kRuntimeCount; ++i) g_config.traced[i] = !runtimes || list_has(runtimes, kRuntimeNames[i]);
  uint64_t records = env_u64("PROF_BUFFER_RECORDS", 1u << 16);
  uint64_t pow2 = 1024;
  while (pow2 < records && pow2 < (1ull << 30)) pow2 <<= 1;
  g_config.buffer_records = pow2;
  g_config.full_wait_ms = env_u64("PROF_BUFFER_WAIT_MS", 10000);
  g_config.self_move = env_u64("PROF_SELF_MOVE", 1) != 0;
  g_config.enabled = true;
  // Test only: PROF_TEST_CLOCK_SKEW=<rank>:<ns> runs that rank's clock <ns> ahead (common/clock.hpp).
  if (const char* skew = getenv("PROF_TEST_CLOCK_SKEW")) {
    char* end = nullptr;
    const long rank = strtol(skew, &end, 10);
    if (end != skew && *end == ':' && rank == mpi_rank()) g_test_clock_skew_ns = strtoll(end + 1, nullptr, 10);
  }
  // After the skew, as the calls' times: the start is on the same clock.
  g_config.image_token = now_ns();
  g_config.start_ppid = static_cast<int>(getppid());
  hook_clock_init();  // after the skew: its baseline reading includes it
}

__attribute__((constructor)) static void prof_interpose_init() {
  load_config();
  if (!g_config.enabled) return;
  // The process's files wait for its first recorded call (announce_process, process_files.hpp).
  // The info file's start_ns is the start: a window opened "at the start" never precedes it.
  capture_start(g_config.image_token);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  // Registered before main runs, so it runs after the program's own atexit handlers.
  atexit(on_exit_handler);
}

}  // namespace prof::interpose
