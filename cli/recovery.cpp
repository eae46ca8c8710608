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

// A directory or file of the run that this user may act on: not a symlink, of the expected type,
// owned by the invoking user (euid), and (a directory) writable by nobody else. Anything else was
// made or can be changed by another local user: acting on it would let them pick what prof
// deletes or replaces (docs/guarantees.md, "Threat model").
bool owned_here(const std::string& path, bool directory, std::string& why) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    why = path + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISLNK(st.st_mode))
    why = path + ": is a symbolic link; not following it";
  else if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
    why = path + (directory ? ": not a directory" : ": not a regular file");
  else if (st.st_uid != geteuid())
    why = path + ": owned by uid " + std::to_string(st.st_uid) +
          ", not by this user; not acting on it";
  else if (directory && (st.st_mode & (S_IWGRP | S_IWOTH)))
    why = path + ": writable by other users; not acting on it";
  else if (!directory && st.st_nlink != 1)
    why = path + ": has other names (hard links); not acting on it";
  else
    return true;
  return false;
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool has_dot_dot(const std::string& path) {
  return path == ".." || path.rfind("../", 0) == 0 || path.find("/../") != std::string::npos ||
         (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0);
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

std::optional<OrphanedRun> OrphanedRun::take(const std::string& named_dir, std::string& why) {
  const std::string run_dir = without_trailing_slashes(named_dir);
  if (!owned_here(run_dir, true, why)) return std::nullopt;
  const std::string path = run_dir + "/" + kManifestName;
  // O_NONBLOCK: a FIFO in place of the manifest fails the type check below instead of hanging.
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT ? "not a prof run directory (no " + std::string(kManifestName) + ")"
                          : path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (!owned_here(path, false, why)) {
    ::close(fd);
    return std::nullopt;
  }
  // A moment's retry: another prof's scan for orphans (find_orphaned_runs) may hold it shared.
  bool locked = false;
  for (int attempt = 0; attempt < 20 && !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0); ++attempt)
    usleep(10000);
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
  if (!run.confined(why)) return std::nullopt;
  return run;
}

// The paths a manifest names are the ones prof itself makes (cli/main.cpp, collector/): the
// journal directory is <output_dir>/.<run dir's name>, the fallback run directory is a
// prof-run-XXXXXX of this user, and each <pid>.dbpath note names a .db file directly in
// output_dir. Anything else is refused before recovery deletes or replaces a single file.
bool OrphanedRun::confined(std::string& why) const {
  const std::string manifest = run_dir_ + "/" + kManifestName;
  const std::string output_dir = without_trailing_slashes(get("output_dir"));
  if (output_dir.empty() || output_dir[0] != '/' || has_dot_dot(output_dir)) {
    why = manifest + ": output_dir=" + output_dir +
          " is not an absolute path without '..'; refusing it";
    return false;
  }
  const std::string journal_dir = get("journal_dir");
  if (!journal_dir.empty()) {
    if (journal_dir != output_dir + "/." + base_name(run_dir_)) {
      why = manifest + ": journal_dir=" + journal_dir + " is not this run's journal directory (" +
            output_dir + "/." + base_name(run_dir_) + "); refusing it";
      return false;
    }
    struct stat st {};
    if (lstat(journal_dir.c_str(), &st) == 0) {
      if (!owned_here(journal_dir, true, why)) return false;
      if (!dbpath_notes_confined(journal_dir, output_dir, why)) return false;
    }
  }
  const std::string fallback = get("fallback_run_dir");
  if (!fallback.empty()) {
    if (fallback[0] != '/' || has_dot_dot(fallback) ||
        base_name(fallback).rfind("prof-run-", 0) != 0) {
      why =
          manifest + ": fallback_run_dir=" + fallback + " is not a prof run directory; refusing it";
      return false;
    }
    struct stat st {};
    if (lstat(fallback.c_str(), &st) == 0 && !owned_here(fallback, true, why)) return false;
  }
  return true;
}

bool dbpath_notes_confined(const std::string& journal_dir, const std::string& output_dir,
                           std::string& why) {
  DIR* dir = opendir(journal_dir.c_str());
  if (!dir) return true;  // nothing to follow
  bool ok = true;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() < 8 || name.compare(name.size() - 7, 7, ".dbpath") != 0) continue;
    const std::string note = journal_dir + "/" + name;
    if (!(ok = owned_here(note, false, why))) break;
    const int fd = ::open(note.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    std::string target = fd >= 0 ? read_all(fd) : std::string();
    if (fd >= 0) ::close(fd);
    if (const size_t end = target.find('\n'); end != std::string::npos) target.resize(end);
    const std::string file = target.substr(target.rfind('/') + 1);
    if (target != output_dir + "/" + file || file.size() < 4 || file[0] == '.' ||
        file.compare(file.size() - 3, 3, ".db") != 0) {
      why = note + ": names " + target + ", not a database in " + output_dir + "; refusing it";
      ok = false;
      break;
    }
    struct stat st {};
    if (lstat(target.c_str(), &st) == 0 && !(ok = owned_here(target, false, why))) break;
  }
  closedir(dir);
  return ok;
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
      if (lstat(run_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        continue;
      bool dup = false;
      for (const auto& s : seen) dup = dup || (s.first == st.st_dev && s.second == st.st_ino);
      if (dup) continue;
      seen.emplace_back(st.st_dev, st.st_ino);
      const int fd =
          ::open((run_dir + "/" + kManifestName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
