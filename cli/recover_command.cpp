// prof --recover: finishes the runs of a prof that was killed (docs/design-collector.md,
// "Recovery").
#include <dirent.h>
#include <sys/stat.h>
#include <climits>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/filter_options.hpp"
#include "cli/outputs.hpp"
#include "cli/run_directory.hpp"
#include "collector/collector.hpp"
#include "collector/process_info.hpp"
#include "report/utf8.hpp"

namespace prof::cli {

using report::terminal_escaped;

Manifest output_manifest(const Options& o) {
  Manifest manifest{{"output_dir", o.output_dir},
                    {"output_subdir", o.output_subdir},
                    {"output_name", o.output_name},
                    {"group_stream", o.group_stream ? "1" : "0"},
                    {"no_pftrace", o.no_pftrace ? "1" : "0"},
                    {"output_format", o.output_format},
                    {"json_max_events", std::to_string(o.json_max_events)},
                    {"kernel_stats_by_range", o.kernel_stats_by_range ? "1" : "0"},
                    {"index_range", o.index_range},
                    {"force", o.force ? "1" : "0"},
                    {"summary_output", o.summary_output}};
  add_filter_manifest(o, manifest);
  return manifest;
}

namespace {

Options options_from_manifest(const OrphanedRun& run) {
  Options o;
  o.output_dir = run.get("output_dir");
  o.output_subdir = run.get("output_subdir");
  o.output_name = run.get("output_name");
  o.group_stream = run.get("group_stream") == "1";
  o.no_pftrace = run.get("no_pftrace") == "1";
  // The reports the original command asked for; a value that is no list of outputs (an older or
  // an edited manifest) gives them all.
  if (const std::string formats = run.get("output_format");
      !formats.empty() && output_format_known(formats))
    o.output_format = formats;
  const std::string max_events = run.get("json_max_events");
  if (!max_events.empty()) o.json_max_events = std::strtoll(max_events.c_str(), nullptr, 10);
  if (o.json_max_events < 1) o.json_max_events = report::kDefaultPartEvents;
  o.kernel_stats_by_range = run.get("kernel_stats_by_range") == "1";
  if (parse_range(run.get("index_range"))) o.index_range = run.get("index_range");
  filters_from_manifest(run, o);
  o.force = run.get("force") == "1";
  // The summary goes where this command's goes: the original terminal may be long gone.
  o.summary_output = run.get("summary_output") == "none" ? "none" : "stdout";
  o.program = {run.get("program")};
  return o;
}

// The processes of an orphaned run that are still alive (named by the run's files): their
// recordings end at the recovery, and their databases say so.
std::vector<int> processes_alive(const std::vector<std::string>& dirs) {
  std::vector<int> alive;
  for (const std::string& path : dirs) {
    DIR* dir = path.empty() ? nullptr : opendir(path.c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (end == entry->d_name || *end != '.' || pid <= 0 || pid > INT_MAX) continue;
      if (std::find(alive.begin(), alive.end(), static_cast<int>(pid)) != alive.end()) continue;
      if (collector::process_alive(static_cast<int>(pid))) alive.push_back(static_cast<int>(pid));
    }
    closedir(dir);
  }
  return alive;
}

// The journals are where the killed prof's records went (its whole run, but for what is still in
// the rings): without their directory (removed with the output directory, or by hand) a
// recovery would build empty dbs and 0-call reports, and exit 0 as if all were well. Checked
// before the output directory is made again, as it may have gone with it. Returns the exit code
// when the directory is lost, 0 when it is there (or the run kept none).
int journal_dir_lost(const OrphanedRun& run, const std::string& journal_dir) {
  struct stat st;
  if (journal_dir.empty() || lstat(journal_dir.c_str(), &st) == 0) return 0;
  const bool gone = errno == ENOENT;
  const std::string why =
      gone ? "is gone" : "cannot be read (" + std::string(std::strerror(errno)) + ")";
  const int code =
      fail(kExitNoInput, "--recover " + run.run_dir() + ": its journal directory " + journal_dir +
                             " " + why + ", and with it the recorded calls; nothing written" +
                             (gone ? ", the run removed" : ""));
  if (!gone) return code;  // perhaps a file system not mounted now: the run stays for later
  remove_flat_dir(run.get("fallback_run_dir"));
  remove_flat_dir(run.run_dir());
  return code;
}

void announce_recovery(const OrphanedRun& run, const Options& o, const std::string& program_pid) {
  std::fprintf(stderr, "prof: %s\n",
               terminal_escaped("recovering " + run.run_dir() + ": " + o.program[0] + " (pid " +
                                (program_pid.empty() ? "?" : program_pid) + "), whose prof (pid " +
                                run.get("prof_pid") + ") was killed; outputs in " + o.output_dir)
                   .c_str());
}

// Killed while writing the reports: the databases are complete, each named by a note in the
// journal directory. `moved_away`: a db the killed prof had moved to its pattern's place.
std::vector<collector::CollectedProcess> databases_built(const std::string& journal_dir,
                                                         const Options& o, bool& moved_away) {
  std::vector<collector::CollectedProcess> dbs;
  DIR* dir = opendir(journal_dir.c_str());
  if (!dir) return dbs;
  struct stat st;
  while (dirent* entry = readdir(dir)) {
    int pid = 0, consumed = 0;
    if (std::sscanf(entry->d_name, "%d.dbpath%n", &pid, &consumed) != 1 ||
        consumed != static_cast<int>(std::strlen(entry->d_name)))
      continue;
    std::FILE* f = std::fopen((journal_dir + "/" + entry->d_name).c_str(), "r");
    char path[4096] = {};
    const bool noted = f && std::fgets(path, sizeof path, f);
    if (noted && stat(path, &st) == 0) {
      dbs.push_back({pid, path});
    } else if (noted && !o.output_subdir.empty()) {
      // With a -d/-o pattern the killed prof may have moved the db to its process's place
      // already (cli/output_place.hpp): the note does not follow it, so the user is told.
      moved_away = true;
      const std::string why = std::string(path) +
                              " is not there: the killed prof may have moved it to its "
                              "process's directory under " +
                              o.output_dir + " (" + o.output_subdir +
                              "); `prof --db` on it writes its reports";
      std::fprintf(stderr, "prof: %s\n", terminal_escaped(why).c_str());
    }
    if (f) std::fclose(f);
  }
  closedir(dir);
  return dbs;
}

// The databases built from the rings and journals, as the killed prof's collector would have.
// Returns 0, or the exit code when the collector failed.
int rebuild_databases(const OrphanedRun& run, const Options& o, const std::string& journal_dir,
                      std::vector<collector::CollectedProcess>& dbs, bool& lost) {
  collector::CollectorOptions c{run.run_dir(), run.get("fallback_run_dir"), o.output_dir,
                                PROF_VERSION};
  c.run_id = run.get("run_id");
  c.capture_control = run.get("capture_control");
  c.replace_existing = o.force;
  c.journal_dir = journal_dir;
  c.recovering = true;
  try {
    collector::Collector collector(c);
    dbs = collector.finish(processes_alive({run.run_dir(), run.get("fallback_run_dir")}));
    for (const auto& error : collector.errors())
      std::fprintf(stderr, "prof: %s\n", terminal_escaped(error).c_str());
    lost = collector.output_lost();
  } catch (const std::exception& e) {
    return fail(kExitCannotWrite, "--recover " + run.run_dir() + ": " + e.what());
  }
  return 0;
}

// Finishes one orphaned run as its prof would have: databases from the rings and journals (or, if
// they were complete, as they are), the reports the original command asked for, then no leftovers.
int recover_run(const OrphanedRun& run) {
  Options o = options_from_manifest(run);
  std::string message;
  const std::string journal_dir = run.get("journal_dir");
  if (const int code = journal_dir_lost(run, journal_dir)) return code;
  if (!prepare_output_dir(o.output_dir, message))
    return fail(kExitCannotWrite, "--recover " + run.run_dir() + ": " + message);
  const std::string program_pid = run.get("program_pid");
  const int launched_pid = program_pid.empty() ? -1 : std::atoi(program_pid.c_str());
  announce_recovery(run, o, program_pid);
  // Its killed prof's unfinished reports: removed, so the reports written now take their names.
  say_stale_temps_removed(o.output_dir, remove_stale_temps(o.output_dir));
  std::vector<collector::CollectedProcess> dbs;
  bool moved_away = false;  // a db the killed prof had moved to its pattern's place
  bool lost = false;
  struct stat st;
  if (!journal_dir.empty() && stat((journal_dir + "/built").c_str(), &st) == 0) {
    dbs = databases_built(journal_dir, o, moved_away);
  } else if (const int code = rebuild_databases(run, o, journal_dir, dbs, lost)) {
    return code;
  }
  std::sort(dbs.begin(), dbs.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  const int code = write_outputs(o, dbs, launched_pid, lost, 0);
  if (dbs.empty() && !moved_away)
    std::fprintf(stderr, "prof: %s: nothing was recorded\n",
                 terminal_escaped(run.run_dir()).c_str());
  remove_flat_dir(journal_dir);
  remove_flat_dir(run.get("fallback_run_dir"));
  remove_flat_dir(run.run_dir());
  return code;
}

}  // namespace

int recover(const Options& o) {
  std::vector<std::string> dirs;
  for (const std::string& dir : o.recover_dirs)
    if (!dir.empty()) dirs.push_back(dir);
  const bool named = !dirs.empty();
  if (!named)
    for (const OrphanFound& orphan : find_orphaned_runs()) dirs.push_back(orphan.run_dir);
  if (dirs.empty()) {
    std::fprintf(
        stderr,
        "prof: nothing to recover (no run of a killed prof in /dev/shm, $TMPDIR or /tmp)\n");
    return 0;
  }
  int result = 0;
  for (const std::string& dir : dirs) {
    struct stat st;
    if (stat(dir.c_str(), &st) != 0) {
      result = fail(kExitNoInput, "--recover " + dir + ": no such directory");
      continue;
    }
    std::string why;
    std::optional<OrphanedRun> run = OrphanedRun::take(dir, why);
    if (!run) {
      // Found by the scan but taken since (another recovery): not this command's business.
      if (named) result = fail(kExitBadInput, "--recover " + dir + ": " + why);
      continue;
    }
    if (const int code = recover_run(*run)) result = code;
  }
  return result;
}

}  // namespace prof::cli
