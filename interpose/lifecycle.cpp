// Start-up, fork and exit of a profiled process. Nothing here runs per call.
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/clock.hpp"
#include "common/env_value.hpp"
#include "interpose/capture.hpp"
#include "interpose/config.hpp"
#include "interpose/device_timing.hpp"
#include "interpose/hook_clock.hpp"
#include "interpose/process_files.hpp"
#include "interpose/thread_buffer.hpp"

namespace prof::interpose {

Config g_config;

namespace {

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

// A bad value is said once, on stderr, and the default used: the program runs as it would without
// prof (the cli refuses such values before it launches anything; this is for a program started
// some other way, or a variable the program changed for its children).
void warn_bad_env(const char* why) noexcept {
  char line[320];
  int n = snprintf(line, sizeof line, "prof: %s; using the default\n", why);
  if (n <= 0) return;
  if (static_cast<size_t>(n) >= sizeof line) n = static_cast<int>(sizeof line - 1);
  const ssize_t ignored = write(STDERR_FILENO, line, static_cast<size_t>(n));
  (void)ignored;
}

uint64_t env_number(const EnvNumber& v) noexcept {
  uint64_t value = 0;
  char why[256];
  if (!read_env_number(v, getenv(v.name), value, why, sizeof why)) warn_bad_env(why);
  return value;
}

void load_config() noexcept {
  const char* dir = getenv("PROF_RUN_DIR");
  struct stat st;
  if (!dir || strlen(dir) >= sizeof(g_config.run_dir) || stat(dir, &st) != 0 ||
      !S_ISDIR(st.st_mode)) {
    g_config.enabled = false;  // not launched by prof (or the run is over): pass everything through
    return;
  }
  strcpy(g_config.run_dir, dir);
  const char* fallback = getenv("PROF_RUN_DIR_FALLBACK");
  if (fallback && strlen(fallback) < sizeof(g_config.run_dir_fallback) &&
      stat(fallback, &st) == 0 && S_ISDIR(st.st_mode))
    strcpy(g_config.run_dir_fallback, fallback);
  g_config.device_timing = env_number(kEnvDeviceTiming) != 0;
  g_config.device_activity = env_number(kEnvDeviceActivity) != 0;
  // A comma-separated list of runtime names; unset means every runtime.
  const char* runtimes = getenv("PROF_RUNTIMES");
  for (size_t i = 0; i < kRuntimeCount; ++i)
    g_config.traced[i] = !runtimes || list_has(runtimes, kRuntimeNames[i]);
  const uint64_t records = env_number(kEnvBufferRecords);
  uint64_t pow2 = 1024;
  while (pow2 < records) pow2 <<= 1;  // records <= 2^28: no overflow
  g_config.buffer_records = pow2;
  g_config.full_wait_ms = env_number(kEnvBufferWaitMs);
  g_config.self_move = env_number(kEnvSelfMove) != 0;
  for (const EnvWord& word : kEnvWords) {
    char why[256];
    if (!read_env_word(word, getenv(word.name), why, sizeof why)) warn_bad_env(why);
  }
  g_config.enabled = true;
  // Test only: PROF_TEST_CLOCK_SKEW=<rank>:<ns> runs that rank's clock <ns> ahead
  // (common/clock.hpp).
  {
    long rank = -1;
    long long skew_ns = 0;
    char why[256];
    if (!read_env_clock_skew(getenv("PROF_TEST_CLOCK_SKEW"), rank, skew_ns, why, sizeof why))
      warn_bad_env(why);
    if (rank >= 0 && rank == mpi_rank()) g_test_clock_skew_ns = skew_ns;
  }
  // After the skew, as the calls' times: the start is on the same clock.
  g_config.image_token = now_ns();
  g_config.start_ppid = static_cast<int>(getppid());
  hook_clock_init();  // after the skew: its baseline reading includes it
}

namespace {
pthread_once_t g_load_once = PTHREAD_ONCE_INIT;

void load_once() {
  load_config();
  if (g_config.enabled) {
    // The process's files wait for its first recorded call (announce_process, process_files.hpp).
    // The info file's start_ns is the start: a window opened "at the start" never precedes it.
    capture_start(g_config.image_token);
    pthread_atfork(nullptr, nullptr, on_fork_child);
    // Registered before main runs, so it runs after the program's own atexit handlers.
    atexit(on_exit_handler);
  }
  g_config_loaded.store(true, std::memory_order_release);
}
}  // namespace

std::atomic<bool> g_config_loaded{false};

void ensure_config_loaded() noexcept { pthread_once(&g_load_once, load_once); }

__attribute__((constructor)) static void prof_interpose_init() { ensure_config_loaded(); }

}  // namespace prof::interpose
