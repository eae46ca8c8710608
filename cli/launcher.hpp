// Runs the program under the preload library: fork/exec (no shell), environment set up for the
// library, signals forwarded, status returned as a shell reports it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace prof::cli {

struct LaunchOptions {
  std::vector<std::string> argv;  // program and its arguments
  std::string preload_library;
  std::string sim_library_dir;  // empty: the real runtime
  std::string run_dir;
  std::string run_dir_fallback;  // PROF_RUN_DIR_FALLBACK, may be empty
  bool device_timing = true;
  bool sigpipe_ignored = false;  // how prof found SIGPIPE: the program starts with the same
  std::string runtimes;  // PROF_RUNTIMES: the runtimes recorded, comma-separated ("hip,musa")
  // Capture control: PROF_CAPTURE=api (--trace-start off), PROF_CAPTURE_DELAY_NS,
  // PROF_CAPTURE_DURATION_NS.
  bool capture_by_api = false;
  int64_t capture_delay_ns = 0;
  int64_t capture_duration_ns = 0;
  // Called in prof once the program's process exists (before it may have exec'd).
  std::function<void(int pid)> on_started;
};

struct LaunchResult {
  int pid = -1;
  int exit_status = 0;  // as a shell reports it: code, or 128+signal
};

// Resolves argv[0] like execvp. Returns the path, or an empty string with `error_code` set to
// 127 (not found) or 126 (not executable) and `message` filled.
std::string resolve_program(const std::string& name, int& error_code, std::string& message);

// Starts the program; on failure to exec returns pid -1 with `message`.
LaunchResult launch_and_wait(const LaunchOptions& options, const std::string& program_path,
                             std::string& message);

}  // namespace prof::cli
