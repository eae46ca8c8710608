// What the launcher tells the preload library, read once from PROF_* variables at load time
// (docs/design-launch.md lists them). Nothing here is consulted per call except through `enabled`.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/env_value.hpp"
#include "runtimes/api_id.hpp"

namespace prof::interpose {

struct Config {
  bool enabled = false;       // PROF_RUN_DIR set and usable
  bool device_timing = true;  // PROF_DEVICE_TIMING=0 turns off the injected events
  bool device_activity =
      true;  // PROF_DEVICE_ACTIVITY=0: events even where the runtime reports per-op times
  bool traced[kRuntimeCount] = {};  // PROF_RUNTIMES=hip,musa: the runtimes whose calls are recorded
  uint64_t buffer_records = 1u << 16;  // PROF_BUFFER_RECORDS, rounded up to a power of two
  uint64_t full_wait_ms = 10000;  // PROF_BUFFER_WAIT_MS: how long a producer waits for a reader
  bool self_move =
      true;  // PROF_SELF_MOVE=0: a thread never moves its own records (it waits for the collector)
  char run_dir[512] = {};  // PROF_RUN_DIR
  char run_dir_fallback[512] =
      {};  // PROF_RUN_DIR_FALLBACK: for rings that do not fit in run_dir; may be empty
  // The image's start (now_ns() at load, or at the fork in a child): the .info file's start_ns, and
  // what distinguishes program images that share a pid (exec) in their files' names.
  uint64_t image_token = 0;
  int start_ppid = 0;  // the parent then (a process announced later may have been reparented)
};

// Process-wide, written once before any hook records (ensure_config_loaded) and after fork.
extern Config g_config;

// Whether g_config has been read from the environment. prof's constructor reads it; so does the
// first hook that runs before that constructor: the dynamic linker initialises the program's own
// libraries before a preloaded one, and a library whose constructor registers its kernels or
// allocates (hipcc's registration, a framework's set-up) called into prof with nothing read, and
// those calls went unrecorded (issue 42). The library has no dynamic initialisers of its own, so
// its hooks work before its constructor has run.
extern std::atomic<bool> g_config_loaded;
// Reads the environment and starts the process's recording state, once (pthread_once).
void ensure_config_loaded() noexcept;

// One line on stderr, "prof: <why>; using the default" (constructor time only, never from a hook).
void warn_bad_env(const char* why) noexcept;
// The variable's value, or its default after warn_bad_env when it is malformed or out of range.
uint64_t env_number(const EnvNumber& v) noexcept;

}  // namespace prof::interpose
