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

namespace {

// mkdtemp under `base`: the absolute path, or empty with `error` set.
std::string make_private_dir(const std::string& base, std::string& error) {
  std::string templ = base + "/prof-run-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {  // mode 0700
    error = base + ": " + strerror(errno);
    return {};
  }
  // Absolute: the program may change directory before its first call opens a buffer.
  char* absolute = realpath(buf.data(), nullptr);
  std::string path = absolute ? absolute : buf.data();
  free(absolute);
  return path;
}

}  // namespace

RunDirectory::RunDirectory() {
  std::vector<std::string> bases;
  if (const char* tmp = getenv("TMPDIR"); tmp && *tmp) bases.push_back(tmp);
  bases.insert(bases.begin(), "/dev/shm");
  bases.push_back("/tmp");
  std::string last_error;
  for (size_t i = 0; i < bases.size() && path_.empty(); ++i) {
    path_ = make_private_dir(bases[i], last_error);
    if (path_.empty()) continue;
    // In memory: rings that do not fit there go to the next base on another file system.
    struct stat here {};
    stat(path_.c_str(), &here);
    for (size_t j = i + 1; j < bases.size() && fallback_path_.empty(); ++j) {
      struct stat there {};
      if (stat(bases[j].c_str(), &there) != 0 || there.st_dev == here.st_dev) continue;
      std::string ignored;
      fallback_path_ = make_private_dir(bases[j], ignored);
    }
  }
  if (path_.empty()) throw std::runtime_error("cannot create a run directory (" + last_error + ")");
}

RunDirectory::~RunDirectory() {
  if (keep_) return;
  remove_flat_dir(path_);
  remove_flat_dir(fallback_path_);
}

void remove_flat_dir(const std::string& path) {
  if (path.empty()) return;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* e = readdir(dir)) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      unlink((path + "/" + e->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(path.c_str());
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
