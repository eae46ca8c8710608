// The command line as prof reads it (cli/main.cpp), and the helpers every command shares: one
// error line, the output directory, the output names, where the summary goes.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report.hpp"
#include "report/timeline_parts.hpp"
#include "runtimes/api_id.hpp"

// Set by cli/CMakeLists.txt from the project version.
#ifndef PROF_VERSION
#define PROF_VERSION "0.0.0"
#endif

namespace prof::cli {

// The words of --output-format, each an output (or a group of them) the db can give.
inline constexpr const char* kOutputFormats[] = {"stats", "trace",   "json", "pftrace",
                                                 "html",  "summary", "all"};
// "" when `list` is a comma list of kOutputFormats, else why not (one word named).
std::string output_format_error(const std::string& list);
inline bool output_format_known(const std::string& list) {
  return output_format_error(list).empty();
}

struct Options {
  // --<flag> of each runtime (runtimes/runtime_list.def), by RuntimeId. Runtimes that share a flag
  // (roctx and mstx: --hiptx-trace) read the first such runtime's entry: see runtime_selected().
  std::array<bool, kRuntimeCount> runtime_trace{};
  bool kernel_stats_by_range = false;
  std::string trace_start = "on";
  std::string delay;
  std::string duration;
  bool sim = false;
  bool group_stream = false;
  bool no_pftrace = false;  // --no-pftrace: no <base>.pftrace
  // --output-format: the outputs besides the db, a comma list of kOutputFormats. Empty (not
  // given): all of them, but over report::kBigRunCalls calls no trace CSVs or JSON timeline.
  std::string output_format;
  bool no_device_timing = false;
  double wait_timeout_s = 30;
  // -d (with -o's directory): after split_output_name, the whole components before the first %
  // pattern (cli/path_pattern.hpp); output_subdir holds the rest, expanded per process.
  std::string output_dir = ".";
  std::string output_subdir;
  std::string output_name;  // -o's base name, a pattern until a process's values expand it
  std::string db;
  std::string index_range;
  // The kernel filters (cli/filter_options.hpp): applied to the reports, never to the db.
  std::string kernel_include_regex;
  std::string kernel_exclude_regex;
  std::string kernel_iteration_range;
  bool truncate_kernels = false;
  bool mangled_kernels = false;
  std::string db_merge;
  bool recursive = false;
  int64_t json_max_events = report::kDefaultPartEvents;
  std::vector<std::string> compare;  // BASE NEW
  std::string threshold = "5%";
  std::string min_time = "10us";
  std::string format = "text";  // --compare's, and --analyze's (text or json)
  bool analyze = false;         // --analyze: findings instead of reports (cli/analyze_command.cpp)
  std::string analyze_fail_above;        // --analyze-fail-above PCT; empty: never fail on findings
  std::vector<std::string> analyze_set;  // --analyze-set NAME=VALUE: the findings' thresholds
  bool ignore_call_count = false;
  bool force = false;
  bool strict = false;
  std::string summary_output = "stdout";
  std::vector<std::string> program;
  std::vector<std::string> recover_dirs;
};

// "prof: <message>" on stderr; returns `code`.
int fail(int code, const std::string& message);
// --index-range A:B, 0 <= A <= B and B >= 1: calls are numbered from 1, and A = 0 is read as 1.
std::optional<std::pair<int64_t, int64_t>> parse_range(const std::string& text);
// The output directory: created when missing (with its parents, mode 0755 less the umask, as
// rocprofv3 and nsys do), followed through symlinks like every other tool, and proved writable
// before anything runs. `dir` becomes its canonical path: SQLite refuses a path with a symlink in
// it. The longest db name prof makes in an output directory, "musa-prof-4194304.2.db" with room to
// spare.
inline constexpr size_t kDbNameRoom = 32;
// It is also refused when a db in it would pass SQLite's path limit (sqlite_max_path_chars).
bool prepare_output_dir(std::string& dir, std::string& message, const char* option = "-d");
// -o NAME: a base name, or a path whose directory is created like -d's (relative to -d). Both are
// checked as patterns (one line naming the option when one is not); --db-merge and --compare
// expand theirs here, a run and --db per process (cli/output_place.cpp).
bool split_output_name(Options& o, std::string& message);
// The pid in a temp name prof writes (`<final>.tmp-<pid>`, report/output_file.cpp), else 0.
int temp_owner_pid(const std::string& name);
struct StaleTemps {
  size_t files = 0;
  uint64_t bytes = 0;
  std::vector<int> pids;  // the killed profs'
};
// Removes the temp files in `dir` whose prof is gone (killed while writing its reports: they would
// stay forever), of this user's only, regular files only.
StaleTemps remove_stale_temps(const std::string& dir);
// One line on stderr when any were removed, saying what finishes the job.
void say_stale_temps_removed(const std::string& dir, const StaleTemps& removed);
// Whether an earlier run's reports use `base` in `dir` (any <base>.* or <base>_* file; a stale temp
// name does not count).
bool base_taken(const std::string& dir, const std::string& base);
// Where the summary goes (--summary-output): stdout, stderr, a file (opened once), or nowhere.
std::FILE* summary_stream(const Options& o);
report::ReportOptions report_options(const Options& o, const std::string& base);
// A percentage: "5%" or "5".
// The findings' thresholds: the defaults with every --analyze-set applied.
report::AnalyzeOptions analyze_options(const Options& o);
std::optional<double> parse_threshold(const std::string& text);
// "10us", "1.5ms", "500ns", "2s", "0".
std::optional<int64_t> parse_duration(const std::string& text);

}  // namespace prof::cli
