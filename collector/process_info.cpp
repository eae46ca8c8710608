#include "collector/process_info.hpp"

#include <signal.h>

#include <cerrno>

#include <fstream>
#include <sstream>

namespace prof::collector {

std::optional<ProcessInfo> read_process_info(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ProcessInfo info;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t eol = content.find('\n', pos);
    if (eol == std::string::npos) return std::nullopt;
    std::string line = content.substr(pos, eol - pos);
    pos = eol + 1;
    size_t eq = line.find('=');
    if (eq == std::string::npos) return std::nullopt;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "cmdline") {
      // The rest of the file: NUL-separated arguments.
      std::string rest = content.substr(pos);
      size_t start = 0;
      while (start < rest.size()) {
        size_t nul = rest.find('\0', start);
        if (nul == std::string::npos) nul = rest.size();
        info.argv.push_back(rest.substr(start, nul - start));
        start = nul + 1;
      }
      return info;
    }
    try {
      if (key == "pid")
        info.pid = std::stoi(value);
      else if (key == "ppid")
        info.ppid = std::stoi(value);
      else if (key == "start_ns")
        info.start_ns = std::stoull(value);
      else if (key == "wall_start_unix_ns")
        info.wall_start_unix_ns = std::stoull(value);
      else if (key == "host_name")
        info.host_name = value;
      else if (key == "rank")
        info.rank = std::stoi(value);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;  // no cmdline line: the file was cut short
}

std::vector<Mapping> read_maps(const std::string& path) {
  std::vector<Mapping> maps;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    // start-end perms offset dev inode [path]
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, file;
    if (!(fields >> range >> perms >> offset >> dev >> inode)) continue;
    std::getline(fields >> std::ws, file);
    if (file.empty() || file[0] != '/') continue;
    Mapping m;
    size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.offset = std::stoull(offset, nullptr, 16);
    m.path = file;
    maps.push_back(std::move(m));
  }
  return maps;
}

std::string join_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

bool process_alive(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return kill(pid, 0) == 0 || errno == EPERM;
  const size_t name_end = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos || name_end + 2 >= stat.size()) return true;
  const char state = stat[name_end + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace prof::collector
