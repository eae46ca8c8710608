#include "cli/run_directory.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace prof::cli {

RunDirectory::RunDirectory() {
  std::vector<std::string> bases;
  if (const char* tmp = getenv("TMPDIR"); tmp && *tmp) bases.push_back(tmp);
  bases.insert(bases.begin(), "/dev/shm");
  bases.push_back("/tmp");
  std::string last_error;
  for (const auto& base : bases) {
    std::string templ = base + "/prof-run-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) {  // mode 0700
      // Absolute: the program may change directory before its first call opens a buffer.
      char* absolute = realpath(buf.data(), nullptr);
      path_ = absolute ? absolute : buf.data();
      free(absolute);
      return;
    }
    last_error = base + ": " + strerror(errno);
  }
  throw std::runtime_error("cannot create a run directory (" + last_error + ")");
}

RunDirectory::~RunDirectory() {
  if (keep_ || path_.empty()) return;
  if (DIR* dir = opendir(path_.c_str())) {
    while (dirent* e = readdir(dir)) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      unlink((path_ + "/" + e->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(path_.c_str());
}

std::string install_prefix() {
  std::vector<char> buf(4096);
  ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  std::string exe(buf.data(), static_cast<size_t>(n));
  std::string bin = exe.substr(0, exe.rfind('/'));
  return bin.substr(0, bin.rfind('/'));
}

}  // namespace prof::cli
