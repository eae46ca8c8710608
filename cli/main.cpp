// prof: run a program under the profiler, or regenerate reports from a database.
#include <dirent.h>
#include <fcntl.h>
#include <climits>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iterator>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <ctime>
#include <regex>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>
#include <string>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/launcher.hpp"
#include "cli/merge.hpp"
#include "cli/recovery.hpp"
#include "cli/run_directory.hpp"
#include "cli/run_processes.hpp"
#include "collector/collector.hpp"
#include "report/compare.hpp"
#include "report/output_file.hpp"
#include "report/report_db.hpp"
#include "report/report_files.hpp"
#include "report/report.hpp"
#include "report/timeline_parts.hpp"
#include "report/report_error.hpp"
#include "runtimes/api_id.hpp"

#ifndef PROF_VERSION
#define PROF_VERSION "0.0.0"
#endif

namespace prof::cli {
using prof::kRuntimeCount;
using prof::kRuntimeNames;
namespace {

struct Options {
  bool hip_trace = false;
  bool musa_trace = false;
  bool cnrt_trace = false;
  bool acl_trace = false;
  bool mpi_trace = false;
  bool hiptx_trace = false;
  bool kernel_stats_by_range = false;
  std::string trace_start = "on";
  std::string delay;
  std::string duration;
  bool sim = false;
  bool group_stream = false;
  bool no_device_timing = false;
  double wait_timeout_s = 30;
  std::string output_dir = ".";
  std::string output_name;
  std::string db;
  std::string index_range;
  std::string db_merge;
  bool recursive = false;
  int64_t json_max_events = report::kDefaultPartEvents;
  std::vector<std::string> compare;  // BASE NEW
  std::string threshold = "5%";
  std::string min_time = "10us";
  std::string format = "text";
  bool ignore_call_count = false;
  bool force = false;
  bool strict = false;
  std::string summary_output = "stdout";
  std::vector<std::string> program;
  std::vector<std::string> recover_dirs;
};

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "prof: %s\n", message.c_str());
  return code;
}

std::optional<std::pair<int64_t, int64_t>> parse_range(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,18}):([0-9]{1,18})$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  int64_t a = std::stoll(m[1]), b = std::stoll(m[2]);
  if (a < 1 || b < a) return std::nullopt;
  return std::make_pair(a, b);
}

// The output directory: created when missing (with its parents, mode 0755 less the umask, as
// rocprofv3 and nsys do), followed through symlinks like every other tool, and proved writable
// before anything runs. `dir` becomes its canonical path: SQLite refuses a path with a symlink in it.
bool prepare_output_dir(std::string& dir, std::string& message, const char* option = "-d") {
  std::string partial;
  size_t at = 0;
  while (at != std::string::npos) {
    at = dir.find('/', at + 1);
    partial = dir.substr(0, at);
    if (partial.empty()) continue;
    struct stat st;
    if (stat(partial.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        message = std::string(option) + " " + dir + ": " + partial + " is not a directory";
        return false;
      }
      continue;
    }
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      message = std::string(option) + " " + dir + ": cannot create " + partial + " (" + std::strerror(errno) + ")";
      return false;
    }
  }
  char resolved[PATH_MAX];
  if (realpath(dir.c_str(), resolved) == nullptr) {
    message = std::string(option) + " " + dir + ": " + std::strerror(errno);
    return false;
  }
  dir = resolved;
  // access() says yes to root everywhere; only creating a file proves the directory takes one.
  std::string probe = dir + "/.prof-probe-" + std::to_string(getpid());
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    message = std::string(option) + " " + dir + ": not writable (" + std::strerror(errno) + ")";
    return false;
  }
  close(fd);
  unlink(probe.c_str());
  return true;
}

// -o NAME: a base name, or a path whose directory is created like -d's (relative to -d).
bool split_output_name(Options& o, std::string& message) {
  if (o.output_name.empty()) return true;
  const size_t slash = o.output_name.rfind('/');
  std::string base = slash == std::string::npos ? o.output_name : o.output_name.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    message = "-o " + o.output_name + ": expected a file name (such as run1), or a path ending in one";
    return false;
  }
  if (slash != std::string::npos) {
    const std::string dir = o.output_name.substr(0, slash);
    o.output_dir = dir.empty() ? "/" : dir[0] == '/' ? dir : o.output_dir + "/" + dir;
  }
  o.output_name = base;
  return true;
}

// Whether an earlier run's reports use `base` in `dir` (any <base>.* or <base>_* file).
bool base_taken(const std::string& dir, const std::string& base) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool taken = false;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() > base.size() && name.compare(0, base.size(), base) == 0 &&
        (name[base.size()] == '.' || name[base.size()] == '_') && name.rfind(".db") != name.size() - 3) {
      taken = true;
      break;
    }
  }
  closedir(d);
  return taken;
}

// Where the summary goes (--summary-output): stdout, stderr, a file (opened once), or nowhere.
std::FILE* summary_stream(const Options& o) {
  if (o.summary_output == "stdout") return stdout;
  if (o.summary_output == "stderr") return stderr;
  if (o.summary_output == "none") return nullptr;
  static std::FILE* file = std::fopen(o.summary_output.c_str(), "w");
  return file;
}

report::ReportOptions report_options(const Options& o, const std::string& base) {
  report::ReportOptions r;
  r.output_dir = o.output_dir;
  r.base_name = base;
  r.group_stream = o.group_stream;
  if (!o.index_range.empty()) r.index_range = parse_range(o.index_range);
  r.json_max_events = o.json_max_events;
  r.kernel_stats_by_range = o.kernel_stats_by_range;
  r.progress = terminal_progress();
  return r;
}

int regenerate(const Options& o) {
  struct stat st;
  if (stat(o.db.c_str(), &st) != 0) return fail(kExitNoInput, "--db " + o.db + ": no such file");
  std::string pid_part;
  std::smatch m;
  std::string file = o.db.substr(o.db.rfind('/') + 1);
  // <runtime>-prof-<pid>.db (hip-prof-<pid>.db, musa-prof-<pid>.db) or prof-<pid>.db (several runtimes).
  static const std::regex db_name(R"(^(?:[a-z0-9]+-)?prof-([0-9]+)\.db$)");
  std::string base = o.output_name;
  if (base.empty()) base = std::regex_match(file, m, db_name) ? "result_" + m[1].str() : file.substr(0, file.rfind('.'));
  // A database whose prof stopped before completing it (killed, interrupted twice) is read as it
  // is, and said so once; its calls have no sequence numbers for --index-range to select by.
  try {
    std::unique_ptr<Database> db = report::open_report_db(o.db);
    if (!report::meta_value(*db, "end_ns")) {
      const std::string what = o.db + " was not finished (its prof stopped while writing it)";
      const std::string fix = "`prof --recover` completes it while its run directory is still there";
      if (!o.index_range.empty())
        return fail(kExitBadInput, "--index-range " + o.index_range + ": " + what + ", so its calls have no sequence "
                                   "numbers; " + fix);
      std::fprintf(stderr, "prof: %s: no sequence numbers, drop counts or end time; reported as it is (%s)\n",
                   what.c_str(), fix.c_str());
    }
  } catch (const report::ReportError& e) {
    return fail(report_exit_code(e), e.what());
  }
  std::string message;
  Options out = o;
  if (!prepare_output_dir(out.output_dir, message)) return fail(kExitCannotWrite, message);
  try {
    const report::ReportResult written = report::write_reports(o.db, report_options(out, base), summary_stream(o));
    print_warnings(written);
    for (const std::string& failed : written.failed) std::fprintf(stderr, "prof: %s\n", failed.c_str());
    if (!written.failed.empty()) return kExitCannotWrite;
  } catch (const report::ReportError& e) {
    return fail(report_exit_code(e), e.what());
  }
  return 0;
}

int merge(const Options& o) {
  std::string message;
  struct stat st;
  if (stat(o.db_merge.c_str(), &st) != 0) return fail(kExitNoInput, "--db-merge " + o.db_merge + ": no such directory");
  if (!S_ISDIR(st.st_mode)) return fail(kExitBadInput, "--db-merge " + o.db_merge + ": not a directory");
  Options out = o;
  if (!prepare_output_dir(out.output_dir, message)) return fail(kExitCannotWrite, message);
  return merge_databases({o.db_merge, o.recursive, PROF_VERSION, !o.strict},
                         report_options(out, o.output_name.empty() ? "result_merged" : o.output_name),
                         summary_stream(o));
}

// The processes of one run share its id (meta run_id): `prof --compare` treats a folder's dbs with one
// id as one run. Ranks started by one MPI job share the job's id, even with a prof per rank.
std::string make_run_id() {
  for (const char* job : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "SLURM_JOB_ID"}) {
    const char* value = getenv(job);
    if (!value || !*value) continue;
    std::string id = std::string("job:") + value;
    if (const char* step = getenv("SLURM_STEP_ID"); step && std::string(job) == "SLURM_JOB_ID") id += "." + std::string(step);
    return id;
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return std::string("prof:") + host + ":" + std::to_string(getpid()) + ":" +
         std::to_string(static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec);
}

// A percentage: "5%" or "5".
std::optional<double> parse_threshold(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,6}(\.[0-9]{1,6})?)%?$)");
  if (!std::regex_match(text, pattern)) return std::nullopt;
  return std::stod(text) / 100.0;
}

// "10us", "1.5ms", "500ns", "2s", "0".
std::optional<int64_t> parse_duration(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,9}(\.[0-9]{1,9})?)(ns|us|ms|s)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  const std::string unit = m[3].str();
  const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1;
  if (unit.empty() && std::stod(m[1].str()) != 0) return std::nullopt;  // a bare number needs a unit
  return static_cast<int64_t>(std::llround(std::stod(m[1].str()) * scale));
}

// prof --compare BASE NEW: exit 0 clean, 1 regressed, 2 usage or input error.
int compare(const Options& o) {
  constexpr int kCompareError = 2, kCompareRegressed = 1;
  std::optional<double> threshold = parse_threshold(o.threshold);
  if (!threshold) return fail(kCompareError, "--threshold " + o.threshold + ": expected a percentage such as 5%");
  std::optional<int64_t> min_time = parse_duration(o.min_time);
  if (!min_time) return fail(kCompareError, "--min-time " + o.min_time + ": expected a duration such as 10us, 1ms, 0");
  static const std::pair<const char*, report::CompareFormat> formats[] = {
      {"text", report::CompareFormat::kText}, {"csv", report::CompareFormat::kCsv},
      {"json", report::CompareFormat::kJson}, {"markdown", report::CompareFormat::kMarkdown}};
  const auto* format = std::find_if(std::begin(formats), std::end(formats),
                                    [&](const auto& f) { return o.format == f.first; });
  if (format == std::end(formats))
    return fail(kCompareError, "--format " + o.format + ": expected text, csv, json or markdown");
  report::CompareOptions options;
  options.threshold = *threshold;
  options.min_time_ns = *min_time;
  options.check_calls = !o.ignore_call_count;
  report::Comparison result;
  try {
    report::Side base = report::load_side(o.compare[0]);
    report::Side now = report::load_side(o.compare[1]);
    result = report::compare_sides(base, now, options);
  } catch (const report::ReportError& e) {
    return fail(kCompareError, e.what());
  }
  report::StringSink text;
  report::write_comparison(result, format->second, text);
  if (o.output_name.empty()) {
    std::fwrite(text.text().data(), 1, text.text().size(), stdout);
  } else {
    static const char* extensions[] = {".txt", ".csv", ".json", ".md"};
    std::string path = report::join_path(o.output_dir, o.output_name + extensions[format - std::begin(formats)]);
    try {
      report::OutputFile file(path, "");
      file.write(text.text());
      file.finish();
      file.commit();
    } catch (const report::ReportError& e) {
      return fail(kCompareError, e.what());
    }
    std::printf("prof: %s: %s\n", path.c_str(),
                result.regressions ? (std::to_string(result.regressions) + " regression(s)").c_str() : "clean");
  }
  std::fflush(stdout);
  return result.regressions ? kCompareRegressed : 0;
}

// The options that shape a run's outputs, as the run manifest keeps them for `prof --recover`.
Manifest output_manifest(const Options& o) {
  return {{"output_dir", o.output_dir},
          {"output_name", o.output_name},
          {"group_stream", o.group_stream ? "1" : "0"},
          {"json_max_events", std::to_string(o.json_max_events)},
          {"kernel_stats_by_range", o.kernel_stats_by_range ? "1" : "0"},
          {"index_range", o.index_range},
          {"force", o.force ? "1" : "0"},
          {"summary_output", o.summary_output}};
}

Options options_from_manifest(const OrphanedRun& run) {
  Options o;
  o.output_dir = run.get("output_dir");
  o.output_name = run.get("output_name");
  o.group_stream = run.get("group_stream") == "1";
  const std::string max_events = run.get("json_max_events");
  if (!max_events.empty()) o.json_max_events = std::strtoll(max_events.c_str(), nullptr, 10);
  if (o.json_max_events < 1) o.json_max_events = report::kDefaultPartEvents;
  o.kernel_stats_by_range = run.get("kernel_stats_by_range") == "1";
  if (parse_range(run.get("index_range"))) o.index_range = run.get("index_range");
  o.force = run.get("force") == "1";
  // The summary goes where this command's goes: the original terminal may be long gone.
  o.summary_output = run.get("summary_output") == "none" ? "none" : "stdout";
  o.program = {run.get("program")};
  return o;
}

// Once the program has ended, prof writes the databases and reports: an interrupt (Ctrl-C, kill)
// then says what is going on, and only a second one abandons the finish, leaving the run to
// `prof --recover`.
volatile sig_atomic_t g_finish_interrupts = 0;

void on_finish_interrupt(int sig) {
  g_finish_interrupts = g_finish_interrupts + 1;
  if (g_finish_interrupts == 1) {
    static const char note[] =
        "\nprof: still writing the profile; interrupt again to stop now (`prof --recover` finishes it later)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
    return;
  }
  static const char note[] = "\nprof: stopped; `prof --recover` finishes this run's profile\n";
  ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
  (void)ignored;
  _exit(128 + sig);
}

void guard_the_finish() {
  struct sigaction sa {};
  sa.sa_handler = on_finish_interrupt;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGQUIT}) sigaction(sig, &sa, nullptr);
}

// The reports of a finished run (or a recovered one): the launched process first, then its
// children, each under its own name, then one summary over all. Returns the program's status, or
// kExitCannotWrite when an output is lost.
int write_outputs(const Options& o, std::vector<collector::CollectedProcess> dbs, int launched_pid, bool output_lost,
                  int exit_status) {
  // The launched process first, then its children, each under its own name. A name an earlier
  // run's reports hold gets the next free <base>.2, .3, ... (unless --force).
  std::stable_partition(dbs.begin(), dbs.end(), [&](const auto& d) { return d.pid == launched_pid; });
  std::vector<std::string> lost;
  if (output_lost) lost.push_back("a database could not be written (above)");
  for (const auto& db : dbs) {
    const std::string wanted = o.output_name.empty() ? "result_" + std::to_string(db.pid)
                               : db.pid == launched_pid ? o.output_name
                                                      : o.output_name + "_" + std::to_string(db.pid);
    std::string base = wanted;
    for (int n = 2; !o.force && base_taken(o.output_dir, base); ++n) base = wanted + "." + std::to_string(n);
    if (base != wanted)
      std::fprintf(stderr, "prof: %s/%s.* belong to an earlier run: this run's reports are %s.* (--force replaces)\n",
                   o.output_dir.c_str(), wanted.c_str(), base.c_str());
    try {
      std::fflush(stdout);
      if (dbs.size() > 1 && summary_stream(o)) {
        // Several processes: each summary under a line naming its process, then one over all.
        std::fprintf(summary_stream(o), "%s%s\n", &db == &dbs.front() ? "" : "\n",
                     report::process_heading(db.db_path).c_str());
        std::fflush(summary_stream(o));
      }
      const report::ReportResult written = report::write_reports(db.db_path, report_options(o, base), summary_stream(o));
      print_warnings(written);
      for (const std::string& failed : written.failed) {
        std::fprintf(stderr, "prof: %s\n", failed.c_str());
        lost.push_back("a report of process " + std::to_string(db.pid) + " not written");
      }
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: %s\n", e.what());
      lost.push_back(std::string("reports of process ") + std::to_string(db.pid) + " not written");
    }
  }
  if (dbs.size() > 1 && summary_stream(o)) {
    std::vector<std::string> paths;
    for (const auto& db : dbs) paths.push_back(db.db_path);
    try {
      std::fputc('\n', summary_stream(o));
      report::write_combined_summary(paths, summary_stream(o));
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: combined summary: %s\n", e.what());
    }
  }
  if (!lost.empty()) {
    // A lost profile must not look like a good one to a script: prof's own "cannot write" status.
    std::string what;
    for (const std::string& l : lost) what += (what.empty() ? "" : "; ") + l;
    std::fprintf(stderr, "prof: outputs incomplete (%s); exiting %d instead of the program's status %d\n",
                 what.c_str(), kExitCannotWrite, exit_status);
    return kExitCannotWrite;
  }
  return exit_status;
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
      // Alive and not a zombie waiting for its parent.
      std::FILE* stat_file = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
      if (!stat_file) continue;
      char line[512] = {};
      const bool read = std::fgets(line, sizeof line, stat_file) != nullptr;
      std::fclose(stat_file);
      const char* state = read ? std::strrchr(line, ')') : nullptr;
      if (state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X') alive.push_back(static_cast<int>(pid));
    }
    closedir(dir);
  }
  return alive;
}

// Finishes one orphaned run as its prof would have: databases from the rings and journals (or, if
// they were complete, as they are), the reports the original command asked for, then no leftovers.
int recover_run(const OrphanedRun& run) {
  Options o = options_from_manifest(run);
  std::string message;
  if (!prepare_output_dir(o.output_dir, message)) return fail(kExitCannotWrite, "--recover " + run.run_dir() + ": " + message);
  const std::string journal_dir = run.get("journal_dir");
  const std::string program_pid = run.get("program_pid");
  const int launched_pid = program_pid.empty() ? -1 : std::atoi(program_pid.c_str());
  std::fprintf(stderr, "prof: recovering %s: %s (pid %s), whose prof (pid %s) was killed; outputs in %s\n",
               run.run_dir().c_str(), o.program[0].c_str(), program_pid.empty() ? "?" : program_pid.c_str(),
               run.get("prof_pid").c_str(), o.output_dir.c_str());
  std::vector<collector::CollectedProcess> dbs;
  bool lost = false;
  struct stat st;
  if (!journal_dir.empty() && stat((journal_dir + "/built").c_str(), &st) == 0) {
    // Killed while writing the reports: the databases are complete.
    if (DIR* dir = opendir(journal_dir.c_str())) {
      while (dirent* entry = readdir(dir)) {
        int pid = 0, consumed = 0;
        if (std::sscanf(entry->d_name, "%d.dbpath%n", &pid, &consumed) != 1 ||
            consumed != static_cast<int>(std::strlen(entry->d_name)))
          continue;
        std::FILE* f = std::fopen((journal_dir + "/" + entry->d_name).c_str(), "r");
        char path[4096] = {};
        if (f && std::fgets(path, sizeof path, f) && stat(path, &st) == 0) dbs.push_back({pid, path});
        if (f) std::fclose(f);
      }
      closedir(dir);
    }
  } else {
    collector::CollectorOptions c{run.run_dir(), run.get("fallback_run_dir"), o.output_dir, PROF_VERSION};
    c.run_id = run.get("run_id");
    c.capture_control = run.get("capture_control");
    c.replace_existing = o.force;
    c.journal_dir = journal_dir;
    c.recovering = true;
    try {
      collector::Collector collector(c);
      dbs = collector.finish(processes_alive({run.run_dir(), run.get("fallback_run_dir")}));
      for (const auto& error : collector.errors()) std::fprintf(stderr, "prof: %s\n", error.c_str());
      lost = collector.output_lost();
    } catch (const std::exception& e) {
      return fail(kExitCannotWrite, "--recover " + run.run_dir() + ": " + e.what());
    }
  }
  std::sort(dbs.begin(), dbs.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  const int code = write_outputs(o, dbs, launched_pid, lost, 0);
  if (dbs.empty()) std::fprintf(stderr, "prof: %s: nothing was recorded\n", run.run_dir().c_str());
  remove_flat_dir(journal_dir);
  remove_flat_dir(run.get("fallback_run_dir"));
  remove_flat_dir(run.run_dir());
  return code;
}

// prof --recover [DIR...]: every orphaned run of this user, or the run directories named.
int recover(const Options& o) {
  std::vector<std::string> dirs;
  for (const std::string& dir : o.recover_dirs)
    if (!dir.empty()) dirs.push_back(dir);
  const bool named = !dirs.empty();
  if (!named)
    for (const OrphanFound& orphan : find_orphaned_runs()) dirs.push_back(orphan.run_dir);
  if (dirs.empty()) {
    std::fprintf(stderr, "prof: nothing to recover (no run of a killed prof in /dev/shm, $TMPDIR or /tmp)\n");
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

int run(const Options& options) {
  std::string message;
  Options o = options;
  if (!prepare_output_dir(o.output_dir, message)) return fail(kExitCannotWrite, message);
  int not_found_code = 0;
  std::string program = resolve_program(o.program[0], not_found_code, message);
  if (program.empty()) return fail(not_found_code, message);

  const std::string prefix = install_prefix();
  LaunchOptions launch;
  launch.argv = o.program;
  launch.preload_library = prefix + "/lib/prof/libprof_preload.so";
  if (access(launch.preload_library.c_str(), R_OK) != 0)
    return fail(kExitProfFailed, launch.preload_library + ": preload library missing (is prof installed?)");
  if (o.sim) {
    // Every simulated runtime (libamdhip64.so.5, libmusart.so.N) lives in this one directory.
    launch.sim_library_dir = prefix + "/lib/prof/sim";
    if (access((launch.sim_library_dir + "/libamdhip64.so.5").c_str(), R_OK) != 0)
      return fail(kExitProfFailed, launch.sim_library_dir + ": simulated runtime missing");
  }
  launch.device_timing = !o.no_device_timing;
  // prof's own writes to a closed pipe (`prof ./app | head -1`) fail with EPIPE and end only the
  // summary; the program starts with SIGPIPE as prof found it.
  struct sigaction sigpipe_before {};
  sigaction(SIGPIPE, nullptr, &sigpipe_before);
  launch.sigpipe_ignored = sigpipe_before.sa_handler == SIG_IGN;
  signal(SIGPIPE, SIG_IGN);
  // --<runtime>-trace flags select device runtimes; none selects every device runtime prof knows.
  // MPI is recorded only with --mpi-trace.
  // Markers (roctx, mstx) only with --hiptx-trace. The device runtimes come first in RuntimeId.
  const bool selected[kRuntimeCount] = {o.hip_trace,  o.musa_trace,  o.cnrt_trace, o.acl_trace,
                                        o.mpi_trace,  o.hiptx_trace, o.hiptx_trace};
  const size_t mpi = static_cast<size_t>(prof::RuntimeId::kMpi);
  const bool any = std::find(std::begin(selected), std::begin(selected) + mpi, true) != std::begin(selected) + mpi;
  for (size_t i = 0; i < kRuntimeCount; ++i)
    if (selected[i] || (!any && i < mpi))
      launch.runtimes += (launch.runtimes.empty() ? "" : ",") + std::string(kRuntimeNames[i]);
  // Capture control: recording only inside windows (by the program's calls, or by time).
  launch.capture_by_api = o.trace_start == "off";
  launch.capture_delay_ns = o.delay.empty() ? 0 : *parse_duration(o.delay);
  launch.capture_duration_ns = o.duration.empty() ? 0 : *parse_duration(o.duration);

  std::optional<RunDirectory> run_dir;
  try {
    run_dir.emplace();
  } catch (const std::exception& e) {
    return fail(kExitProfFailed, e.what());
  }
  if (getenv("PROF_KEEP_RUN_DIR")) run_dir->keep();
  launch.run_dir = run_dir->path();
  launch.run_dir_fallback = run_dir->fallback_path();

  collector::CollectorOptions collecting{run_dir->path(), run_dir->fallback_path(), o.output_dir, PROF_VERSION};
  collecting.run_id = make_run_id();
  collecting.replace_existing = o.force;
  if (launch.capture_by_api) collecting.capture_control = "--trace-start off";
  if (!o.delay.empty())
    collecting.capture_control += (collecting.capture_control.empty() ? "" : " ") + std::string("--delay ") + o.delay;
  if (!o.duration.empty())
    collecting.capture_control +=
        (collecting.capture_control.empty() ? "" : " ") + std::string("--duration ") + o.duration;
  std::optional<collector::Collector> collector;
  std::optional<ManifestLock> manifest;
  try {
    collector.emplace(collecting);
    // What `prof --recover` needs to finish this run if prof is killed: held locked while prof lives.
    Manifest m = output_manifest(o);
    m["prof_pid"] = std::to_string(getpid());
    m["program"] = o.program[0];
    m["runtimes"] = launch.runtimes;
    m["run_id"] = collecting.run_id;
    m["capture_control"] = collecting.capture_control;
    m["journal_dir"] = collector->journal_dir();
    m["fallback_run_dir"] = run_dir->fallback_path();
    manifest.emplace(run_dir->path(), m);
  } catch (const std::exception& e) {
    if (collector) collector->remove_journal();
    return fail(kExitCannotWrite, e.what());
  }
  launch.on_started = [&](int pid) { manifest->set("program_pid", std::to_string(pid)); };
  // Runs into this output directory left by a prof that was killed: said once, they are not this
  // run's business. (Runs elsewhere are not mentioned: the line goes to the program's stderr,
  // and every run on the machine would carry it.)
  if (const size_t orphans = count_orphaned_runs_into(o.output_dir))
    std::fprintf(stderr,
                 "prof: %zu earlier run%s into %s ended when %s prof was killed; `prof --recover` finishes %s\n",
                 orphans, orphans == 1 ? "" : "s", o.output_dir.c_str(), orphans == 1 ? "its" : "their",
                 orphans == 1 ? "it" : "them");
  collector->start();
  // Descendants that outlive their parents (daemons, background jobs) become prof's children, so
  // prof can wait for them below.
  become_subreaper();
  LaunchResult result = launch_and_wait(launch, program, message);
  // The program is done: a terminal that closes now ends the summary, not the databases and reports.
  signal(SIGHUP, SIG_IGN);
  guard_the_finish();
  // Processes of the run still alive (a daemon, a background job) are still recording: wait for
  // them, up to --wait-timeout, then say which ones are cut short.
  const std::vector<int> running = wait_for_descendants(result.pid < 0 ? 0 : o.wait_timeout_s);
  for (int pid : running)
    std::fprintf(stderr, "prof: process %d (%s) still running %gs after %s exited; its recording is cut short\n", pid,
                 process_name(pid).c_str(), o.wait_timeout_s, o.program[0].c_str());
  std::vector<collector::CollectedProcess> dbs = collector->finish(running);
  if (result.pid < 0) {
    collector->remove_journal();
    return fail(result.exit_status ? result.exit_status : kExitProfFailed, message);
  }
  for (const auto& error : collector->errors()) std::fprintf(stderr, "prof: %s\n", error.c_str());

  if (const char* pause = getenv("PROF_TEST_PAUSE"); pause && std::strcmp(pause, "reports") == 0) {
    // The fault suite's moment "prof killed while it writes the reports" (test/e2e/test_recover.py).
    std::fputs("prof: PROF_TEST_PAUSE=reports: pausing before the reports\n", stderr);
    sleep(60);
  }
  const int code = write_outputs(o, dbs, result.pid, collector->output_lost(), result.exit_status);
  collector->remove_journal();
  if (code != result.exit_status) return code;
  if (dbs.empty() && collector->errors().empty() && !collecting.capture_control.empty())
    std::fprintf(stderr, "prof: %s made no call to a traced runtime (%s) inside a capture window (%s); nothing recorded\n",
                 o.program[0].c_str(), launch.runtimes.c_str(), collecting.capture_control.c_str());
  else if (dbs.empty() && collector->errors().empty())
    std::fprintf(stderr, "prof: %s made no calls to a traced runtime (%s); nothing recorded\n", o.program[0].c_str(),
                 launch.runtimes.c_str());
  return result.exit_status;
}

}  // namespace
}  // namespace prof::cli

int main(int argc, char** argv) {
  using namespace prof::cli;
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug
  Options o;
  CLI::App app{"prof: a launcher-profiler for accelerator runtimes (HIP, MUSA, CNRT, ACL)"};
  app.footer(
      "Examples:\n"
      "  prof ./app 1024                       trace every runtime the program calls\n"
      "  prof --hip-trace ./app 1024           trace only the HIP runtime\n"
      "  prof --musa-trace ./app 1024          trace only the MUSA runtime\n"
      "  prof --cnrt-trace ./app               trace only Cambricon CNRT (queues, notifiers, MLUs)\n"
      "  prof --acl-trace ./app                trace only Ascend ACL (operators, models, NPUs)\n"
      "  prof --hiptx-trace ./train            also roctx/mstx marks and ranges (<base>.range_stats.csv)\n"
      "  prof --trace-start off ./app          record only between hipProfilerStart and hipProfilerStop\n"
      "  prof --delay 10s --duration 5s ./srv  record one window of a long run, by time\n"
      "  prof --sim ./app 1024                 run on prof's simulated devices (HIP, MUSA)\n"
      "  prof --sim -d out -o run1 ./app       outputs in out/, named run1.*\n"
      "  prof --db hip-prof-4242.db            regenerate the reports from a database\n"
      "  prof --db-merge runs/ -d out          merge every prof database in runs/ (result_merged.*)\n"
      "  prof --compare base.db new.db         compare two profiles; exit 1 when something regressed\n"
      "  prof --recover                        finish the runs of a prof that was killed (kill -9, OOM)\n"
      "\nOutputs (DIR = -d, default .): <runtime>-prof-<pid>.db (hip-prof-, musa-prof-; prof-<pid>.db\n"
      "when the process called several runtimes), result_<pid>.<runtime>trace.csv per runtime\n"
      "(hiptrace, musatrace), result_<pid>.kernel.csv, result_<pid>.report.html (the run on one\n"
      "page: open it first, in a browser), result_<pid>_copy.json (open in chrome://tracing or\n"
      "ui.perfetto.dev).\n"
      "Exit status: the program's (128+N if killed by signal N); prof's own errors: 2 usage,\n"
      "65 bad database, 66 missing input, 73 cannot write, 125 launch failed, 126 not executable, 127 not found.");
  app.prefix_command(true);
  app.set_version_flag("--version", PROF_VERSION);
  app.add_flag("--hip-trace", o.hip_trace, "Trace the HIP runtime API, kernels and copies");
  app.add_flag("--musa-trace", o.musa_trace, "Trace the MUSA runtime API, kernels and copies");
  app.add_flag("--cnrt-trace", o.cnrt_trace, "Trace the Cambricon CNRT API, kernels, copies and notifiers");
  app.add_flag("--acl-trace", o.acl_trace, "Trace the Ascend ACL API, operators, models, kernels and copies");
  app.add_flag("--mpi-trace", o.mpi_trace,
               "Also trace MPI calls (bytes, peer, tag) and align the ranks' clocks for --db-merge");
  app.add_flag("--hiptx-trace", o.hiptx_trace,
               "Also record roctx (and Ascend mstx) marks and ranges: a Markers and Ranges lane per thread, "
               "<base>.range_stats.csv");
  app.add_flag("--kernel-stats-by-range", o.kernel_stats_by_range,
               "Also write <base>.kernel_by_range.csv: kernel statistics per innermost enclosing roctx push/pop "
               "range of the launching thread");
  app.add_option("--trace-start", o.trace_start,
                 "on (default), or off: record nothing until the program calls hipProfilerStart or "
                 "roctxProfilerResume, and stop at hipProfilerStop or roctxProfilerPause, as often as it toggles");
  app.add_option("--delay", o.delay, "Record nothing for this long from the program's start (500ms, 10s, ...)");
  app.add_option("--duration", o.duration, "Record for this long, then nothing (from the start or after --delay)");
  app.add_flag("--sim", o.sim, "Run the program on prof's simulated devices (HIP, MUSA, CNRT, ACL)");
  app.add_option("-d,--output-dir", o.output_dir, "Directory for the outputs (default: current directory)");
  app.add_option("-o,--output", o.output_name, "Base name of the outputs instead of result_<pid>");
  app.add_flag("--group-stream", o.group_stream, "Also write <base>_stream.json: copies and kernels by stream");
  app.add_option("--db", o.db, "Regenerate the reports from this database; runs nothing");
  app.add_option("--db-merge", o.db_merge, "Merge every prof database in DIR into one db and one set of reports");
  app.add_flag("--recursive", o.recursive, "With --db-merge: also search DIR's subdirectories");
  app.add_option("--json-max-events", o.json_max_events,
                 "Split a timeline with more than N events by time into parts <base>_copy.1.json, ... of at most N events"
                 " (default 500000, which a browser tab opens)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            long long n = 0;
            char* end = nullptr;
            n = std::strtoll(text.c_str(), &end, 10);
            return end != text.c_str() && *end == '\0' && n >= 1 ? "" : "expected a whole number of events, at least 1";
          },
          "N"));
  app.add_flag("--force", o.force, "Replace the databases and reports of an earlier run with the same names");
  app.add_option("--summary-output", o.summary_output,
                 "Where the summary goes: stdout (default), stderr, none, or a file");
  app.add_flag("--strict", o.strict, "With --db-merge: a database that cannot be merged is an error, not skipped");
  CLI::Option* recover_option =
      app.add_option("--recover", o.recover_dirs,
                     "Finish the runs of a prof that was killed (every such run of this user, or the run directories "
                     "given): databases and reports where the original command asked; runs nothing")
          ->expected(0, 1 << 20);
  CLI::Option* index_range = app.add_option("--index-range", o.index_range, "Only API calls with sequence numbers A..B (A:B, inclusive)");
  app.add_option("--compare", o.compare,
                 "Compare two profiles (dbs, <base>.summary.json files, or folders of them): BASE NEW; exit 0 "
                 "clean, 1 regressed, 2 error")
      ->expected(2);
  app.add_option("--threshold", o.threshold, "With --compare: flag totals that grew by more than this (default 5%)");
  app.add_option("--min-time", o.min_time,
                 "With --compare: ignore entries whose total is under this on both sides (default 10us)");
  app.add_option("--format", o.format, "With --compare: text (default), csv, json or markdown");
  app.add_flag("--ignore-call-count", o.ignore_call_count,
               "With --compare: a change in call count alone is not a regression");
  app.add_flag("--no-device-timing", o.no_device_timing, "Do not record device begin/end of kernels and copies");
  app.add_option("--wait-timeout", o.wait_timeout_s,
                 "After the program exits, wait up to SECONDS for processes it left running (daemons, background "
                 "jobs) to finish recording (default 30; 0: do not wait)")
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, e.what() + std::string(" (see prof --help)"));
  }
  o.program = app.remaining();
  // `--` ends prof's options (rocprofv3 requires it); what follows is the program.
  const bool dashdash = !o.program.empty() && o.program[0] == "--";
  if (dashdash) o.program.erase(o.program.begin());
  // Options go before the program: a leading '-' here is an option prof does not know.
  if (!dashdash && !o.program.empty() && o.program[0].size() > 1 && o.program[0][0] == '-')
    return fail(kExitUsage, o.program[0] + ": unknown option (see prof --help)");
  {
    std::string message;
    if (!split_output_name(o, message)) return fail(kExitUsage, message);
  }
  if (o.summary_output != "stdout" && o.summary_output != "stderr" && o.summary_output != "none") {
    if (o.summary_output.empty()) return fail(kExitUsage, "--summary-output: expected stdout, stderr, none or a file");
    if (summary_stream(o) == nullptr)
      return fail(kExitCannotWrite, "--summary-output " + o.summary_output + ": " + std::strerror(errno));
  }
  if (o.trace_start != "on" && o.trace_start != "off")
    return fail(kExitUsage, "--trace-start " + o.trace_start + ": expected on or off");
  for (const auto& [option, value] : {std::pair<const char*, const std::string*>{"--delay", &o.delay},
                                      {"--duration", &o.duration}}) {
    if (value->empty()) continue;
    const std::optional<int64_t> ns = parse_duration(*value);
    if (!ns || (*ns <= 0 && std::string(option) == "--duration"))
      return fail(kExitUsage, std::string(option) + " " + *value +
                                  ": expected a time with a unit, such as 500ms, 10s or 2.5s");
  }
  if (index_range->count() > 0 && !parse_range(o.index_range))
    return fail(kExitUsage, "--index-range " + o.index_range + ": expected A:B with 1 <= A <= B");
  if (recover_option->count() > 0) {
    if (!o.program.empty() || !o.db.empty() || !o.db_merge.empty() || !o.compare.empty())
      return fail(kExitUsage, "--recover finishes runs of a killed prof and runs nothing; drop the program, --db, "
                              "--db-merge and --compare");
    return recover(o);
  }
  if (!o.compare.empty()) {
    if (!o.program.empty() || !o.db.empty() || !o.db_merge.empty())
      return fail(kExitUsage, "--compare compares two profiles and runs nothing; drop the program, --db and --db-merge");
    return compare(o);
  }
  if (!o.db_merge.empty()) {
    if (!o.program.empty() || !o.db.empty())
      return fail(kExitUsage, "--db-merge merges databases and runs nothing; drop the program and --db");
    return merge(o);
  }
  if (o.recursive) return fail(kExitUsage, "--recursive goes with --db-merge DIR");
  if (!o.db.empty()) {
    if (!o.program.empty()) return fail(kExitUsage, "--db regenerates reports and runs nothing; drop the program");
    return regenerate(o);
  }
  if (o.program.empty()) return fail(kExitUsage, "no program given (see prof --help)");
  return run(o);
}
