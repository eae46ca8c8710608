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
  // A second directory on another file system ($TMPDIR or /tmp) for rings that do not fit in a
  // small /dev/shm (a container's 64 MiB); empty when path() is not on /dev/shm or none could
  // be made.
  const std::string& fallback_path() const { return fallback_path_; }
  void keep() { keep_ = true; }  // PROF_KEEP_RUN_DIR: for debugging prof itself

 private:
  std::string path_;
  std::string fallback_path_;
  bool keep_ = false;
};

// Removes a directory and the files in it (no subdirectories).
void remove_flat_dir(const std::string& path);

// Directory of the running prof executable's installation: <prefix> of <prefix>/bin/prof.
std::string install_prefix();

}  // namespace prof::cli
