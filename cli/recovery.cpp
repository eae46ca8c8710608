#include "cli/recovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/pwrite_all.hpp"

namespace prof::cli {

namespace {

// key=value lines; a value never holds a newline (such a value is refused at write time).
Manifest parse(const std::string& text) {
  Manifest m;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
    at = end + 1;
  }
  return m;
}

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  return text;
}

}  // namespace

ManifestLock::ManifestLock(const std::string& run_dir, Manifest manifest)
    : path_(run_dir + "/" + kManifestName), manifest_(std::move(manifest)) {
  // Written and locked under another name, then renamed into place: a scan (find_orphaned_runs)
  // never sees this run's manifest unlocked, and never holds the lock this prof needs.
  const std::string fresh = path_ + ".new";
  fd_ = ::open(fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0) {
    write();
    if (rename(fresh.c_str(), path_.c_str()) == 0) return;
  }
  const std::string why = std::strerror(errno);
  if (fd_ >= 0) {
    unlink(fresh.c_str());
    ::close(fd_);
  }
  throw std::runtime_error(path_ + ": cannot create the run manifest (" + why + ")");
}

ManifestLock::~ManifestLock() {
  if (fd_ < 0) return;
  // The run is finished: the manifest goes before its lock, so no scan takes it for an orphan.
  unlink(path_.c_str());
  ::close(fd_);
}

void ManifestLock::set(const std::string& key, const std::string& value) {
  manifest_[key] = value;
  write();
}

// Rewritten in place under the lock: a reader takes the lock before it reads.
void ManifestLock::write() {
  std::string text;
  for (const auto& [key, value] : manifest_)
    if (value.find('\n') == std::string::npos) text += key + "=" + value + "\n";
  if (ftruncate(fd_, 0) != 0) return;
  (void)pwrite_all(fd_, text.data(), text.size(), 0);
}

std::optional<OrphanedRun> OrphanedRun::take(const std::string& run_dir, std::string& why) {
  const std::string path = run_dir + "/" + kManifestName;
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT ? "not a prof run directory (no " + std::string(kManifestName) + ")" : std::strerror(errno);
    return std::nullopt;
  }
  // A moment's retry: another prof's scan for orphans (find_orphaned_runs) may hold it shared.
  bool locked = false;
  for (int attempt = 0; attempt < 20 && !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0); ++attempt) usleep(10000);
  if (!locked) {
    const Manifest m = parse(read_all(fd));
    const auto pid = m.find("prof_pid");
    why = "its prof is still running (pid " + (pid == m.end() ? std::string("?") : pid->second) +
          ") or another prof --recover has it";
    ::close(fd);
    return std::nullopt;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_nlink == 0) {
    why = "its prof finished it";
    ::close(fd);
    return std::nullopt;
  }
  OrphanedRun run;
  run.run_dir_ = run_dir;
  run.manifest_ = parse(read_all(fd));
  run.fd_ = fd;
  if (run.get("output_dir").empty()) {
    why = path + ": incomplete manifest";
    return std::nullopt;
  }
  return run;
}

OrphanedRun::OrphanedRun(OrphanedRun&& other) noexcept
    : run_dir_(std::move(other.run_dir_)), manifest_(std::move(other.manifest_)), fd_(other.fd_) {
  other.fd_ = -1;
}

OrphanedRun::~OrphanedRun() {
  if (fd_ >= 0) ::close(fd_);
}

std::string OrphanedRun::get(const std::string& key) const {
  const auto it = manifest_.find(key);
  return it == manifest_.end() ? std::string() : it->second;
}

std::vector<OrphanFound> find_orphaned_runs() {
  std::vector<std::string> bases = {"/dev/shm"};
  if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) bases.push_back(tmp);
  bases.push_back("/tmp");
  std::vector<OrphanFound> found;
  std::vector<std::pair<dev_t, ino_t>> seen;
  for (const std::string& base : bases) {
    DIR* dir = opendir(base.c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      if (std::strncmp(entry->d_name, "prof-run-", 9) != 0) continue;
      const std::string run_dir = base + "/" + entry->d_name;
      struct stat st {};
      if (lstat(run_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
      bool dup = false;
      for (const auto& s : seen) dup = dup || (s.first == st.st_dev && s.second == st.st_ino);
      if (dup) continue;
      seen.emplace_back(st.st_dev, st.st_ino);
      const int fd = ::open((run_dir + "/" + kManifestName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) continue;
      // Free lock: nobody owns the run. (Taken and dropped at once: shared, so two scans never
      // make each other's run look alive.)
      // A manifest unlinked before its lock was dropped belongs to a run that finished.
      struct stat held {};
      if (flock(fd, LOCK_SH | LOCK_NB) == 0 && fstat(fd, &held) == 0 && held.st_nlink > 0) {
        const Manifest m = parse(read_all(fd));
        const auto out = m.find("output_dir");
        found.push_back({run_dir, out == m.end() ? std::string() : out->second});
      }
      ::close(fd);
    }
    closedir(dir);
  }
  return found;
}

size_t count_orphaned_runs_into(const std::string& output_dir) {
  struct stat ours {};
  if (stat(output_dir.c_str(), &ours) != 0) return 0;
  size_t count = 0;
  for (const OrphanFound& orphan : find_orphaned_runs()) {
    struct stat theirs {};
    count += !orphan.output_dir.empty() && stat(orphan.output_dir.c_str(), &theirs) == 0 &&
             theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
  }
  return count;
}

}  // namespace prof::cli
