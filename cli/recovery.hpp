// What lets a run outlive its prof: the run manifest (<run dir>/run.conf), which says where the
// journals and outputs go and how the reports are named, locked by the prof that owns the run for
// as long as it lives. A run directory whose manifest nobody holds is orphaned: its prof was
// killed, and `prof --recover` finishes it (docs/design-collector.md, "Recovery").
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace prof::cli {

using Manifest = std::map<std::string, std::string>;

inline constexpr const char* kManifestName = "run.conf";

// The live run's manifest: written at start, rewritten as facts arrive (the program's pid), its
// lock held until prof exits (the kernel drops it however prof ends).
class ManifestLock {
 public:
  // Throws std::runtime_error naming the file.
  ManifestLock(const std::string& run_dir, Manifest manifest);
  ~ManifestLock();
  ManifestLock(const ManifestLock&) = delete;
  ManifestLock& operator=(const ManifestLock&) = delete;
  void set(const std::string& key, const std::string& value);

 private:
  void write();
  std::string path_;
  Manifest manifest_;
  int fd_ = -1;
};

// An orphaned run, taken for recovery: its manifest locked by this process until destroyed.
class OrphanedRun {
 public:
  // nullopt with `why` (one line naming the file and the problem) when `run_dir` is not a run
  // directory, its prof is still alive, it or its files are not the invoking user's, or its
  // manifest names a path outside the run's own directories (confined()).
  static std::optional<OrphanedRun> take(const std::string& run_dir, std::string& why);
  OrphanedRun(OrphanedRun&& other) noexcept;
  ~OrphanedRun();
  const std::string& run_dir() const { return run_dir_; }
  const Manifest& manifest() const { return manifest_; }
  std::string get(const std::string& key) const;

 private:
  OrphanedRun() = default;
  bool confined(std::string& why) const;
  std::string run_dir_;
  Manifest manifest_;
  int fd_ = -1;
};

// Every <pid>.dbpath note in `journal_dir` is this user's and names a .db file directly in
// `output_dir` (which, if it exists, is this user's regular file): else false with `why`.
bool dbpath_notes_confined(const std::string& journal_dir, const std::string& output_dir,
                           std::string& why);

struct OrphanFound {
  std::string run_dir;
  std::string output_dir;  // where its outputs were going (the manifest's output_dir)
};

// The run directories of this user whose prof is gone, in the places prof makes them (/dev/shm,
// $TMPDIR, /tmp). Nothing is locked: a caller takes each with OrphanedRun::take.
std::vector<OrphanFound> find_orphaned_runs();

// How many of them were writing their outputs into `output_dir` (the same directory, however
// named).
size_t count_orphaned_runs_into(const std::string& output_dir);

}  // namespace prof::cli
