// The private directory where the preload library's buffers live during a run: created 0700
// under /dev/shm (memory) when possible, removed with its contents when prof ends.
#pragma once
#include <string>

namespace prof::cli {

class RunDirectory {
 public:
  // Throws std::runtime_error naming the directory when it cannot be created.
  RunDirectory();
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const std::string& path() const { return path_; }
  void keep() { keep_ = true; }  // PROF_KEEP_RUN_DIR: for debugging prof itself

 private:
  std::string path_;
  bool keep_ = false;
};

// Directory of the running prof executable's installation: <prefix> of <prefix>/bin/prof.
std::string install_prefix();

}  // namespace prof::cli
