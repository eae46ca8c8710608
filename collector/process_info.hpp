// What the preload library tells the collector about a process: the .info and .maps files.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace prof::collector {

struct ProcessInfo {
  int pid = 0;
  int ppid = 0;
  uint64_t start_ns = 0;
  uint64_t wall_start_unix_ns = 0;
  std::string host_name;
  int rank = -1;  // MPI rank, -1 when not in an MPI job
  std::vector<std::string> argv;
};

// nullopt when the file is missing or malformed.
std::optional<ProcessInfo> read_process_info(const std::string& path);

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
  std::string path;
};
std::vector<Mapping> read_maps(const std::string& path);

// Whether process `pid` can still run code: it exists and is neither a zombie waiting for its
// parent nor dead (state Z or X in /proc/<pid>/stat; without /proc, whether it can be signalled).
bool process_alive(int pid);

// "a b 'c d'": arguments joined for display, quoted where they contain spaces or quotes.
std::string join_command_line(const std::vector<std::string>& argv);

}  // namespace prof::collector
