// The processes of a run: every process that loaded the preload library leaves a
// <pid>.<image>.info file in the run directory when it starts (and after a fork). When the
// launched program exits, prof waits for those still alive (a daemon, a background job) so that
// their calls are recorded too, up to a limit.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace prof::cli {

class RunProcesses {
 public:
  explicit RunProcesses(std::string run_dir) : run_dir_(std::move(run_dir)) {}

  // Waits until no process of the run other than those already reaped is alive, or `limit_s`
  // passed (0: does not wait). Returns the pids still alive at the end.
  std::vector<int> wait(double limit_s);

 private:
  void scan();
  bool alive(int pid, unsigned long long start_ticks) const;

  std::string run_dir_;
  std::map<int, unsigned long long> start_ticks_;  // pid -> start time, against pid reuse
};

// The process's name (comm) for messages, "?" when gone.
std::string process_name(int pid);

}  // namespace prof::cli
