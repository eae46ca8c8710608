#include "cli/run_processes.hpp"

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace prof::cli {
namespace {

// The children of `process`, from /proc/<process>/task/<tid>/children (an orphan is handed to
// one of the reaper's threads).
void add_children(const std::string& process, std::vector<int>& pids) {
  DIR* tasks = opendir(("/proc/" + process + "/task").c_str());
  if (!tasks) return;
  while (dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream in("/proc/" + process + "/task/" + task->d_name + "/children");
    int pid = 0;
    while (in >> pid) pids.push_back(pid);
  }
  closedir(tasks);
}

// Every process below prof: its children, theirs, and so on.
std::vector<int> descendants() {
  std::vector<int> pids;
  add_children("self", pids);
  for (size_t i = 0; i < pids.size(); ++i) add_children(std::to_string(pids[i]), pids);
  return pids;
}

}  // namespace

bool become_subreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::string process_name(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return std::getline(in, name) ? name : "?";
}

std::vector<int> wait_for_descendants(double limit_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    pid_t done;
    while ((done = waitpid(-1, nullptr, WNOHANG)) > 0) {
    }
    if (done < 0 && errno == ECHILD) return {};
    if (std::chrono::steady_clock::now() >= deadline) return descendants();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace prof::cli
