#include "cli/run_processes.hpp"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace prof::cli {
namespace {

// State and start time (clock ticks since boot) from /proc/<pid>/stat; false when gone.
bool read_stat(int pid, char& state, unsigned long long& start_ticks) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  const size_t close = text.rfind(')');  // the name may hold spaces and parentheses
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int i = 0; i < 20 && fields >> field; ++i) {
    if (i == 0) state = field.empty() ? '?' : field[0];
    if (i == 19) {
      start_ticks = std::stoull(field);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string process_name(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return std::getline(in, name) ? name : "?";
}

void RunProcesses::scan() {
  DIR* dir = opendir(run_dir_.c_str());
  if (!dir) return;
  while (dirent* entry = readdir(dir)) {
    int pid = 0;
    unsigned long long image = 0;
    int consumed = 0;
    const std::string name = entry->d_name;
    if (sscanf(name.c_str(), "%d.%llu.info%n", &pid, &image, &consumed) != 2 ||
        consumed != static_cast<int>(name.size()) || pid <= 0 || start_ticks_.count(pid))
      continue;
    char state = '?';
    unsigned long long ticks = 0;
    // A process seen for the first time after it died: nothing to wait for.
    start_ticks_[pid] = read_stat(pid, state, ticks) ? ticks : 0;
  }
  closedir(dir);
}

bool RunProcesses::alive(int pid, unsigned long long start_ticks) const {
  if (start_ticks == 0 || pid == getpid()) return false;
  char state = '?';
  unsigned long long ticks = 0;
  // A zombie has finished; another process under a reused pid is not ours.
  return read_stat(pid, state, ticks) && ticks == start_ticks && state != 'Z' && state != 'X';
}

std::vector<int> RunProcesses::wait(double limit_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  std::vector<int> running;
  for (;;) {
    scan();
    running.clear();
    for (const auto& [pid, ticks] : start_ticks_)
      if (alive(pid, ticks)) running.push_back(pid);
    if (running.empty() || std::chrono::steady_clock::now() >= deadline) return running;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace prof::cli
