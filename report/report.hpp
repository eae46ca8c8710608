// prof's reports: everything it writes from a database. Reads only the db (db/schema.hpp)
// and writes the files described in docs/formats.md, plus the terminal summary.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/findings.hpp"
#include "report/kernel_filter_options.hpp"
#include "report/report_error.hpp"

namespace prof::report {

// A timeline file this large is more than a trace viewer opens; the report says so
// (ReportResult::warnings).
inline constexpr int64_t kViewerMaxEvents = 1'000'000;
inline constexpr int64_t kViewerMaxBytes = 256ll << 20;

// prof's default for ReportOptions::big_run_calls, when --output-format names no outputs.
inline constexpr int64_t kBigRunCalls = 1'000'000;

struct ReportOptions {
  std::string output_dir;  // where files go; must exist
  std::string base_name;   // e.g. "result_4242" (the cli computes it; -o NAME overrides)
  bool summary_to_stdout = true;
  bool group_stream = false;  // also <base>_stream.json
  bool pftrace = true;        // <base>.pftrace, Perfetto's protobuf trace of the copy view
  // Which of the other outputs are written (prof --output-format; the db is always there):
  bool stats_csv =
      true;  // stats: <base>.<rt>trace.csv per runtime, kernel, copy and memory statistics
  bool trace_csv =
      true;  // trace: <base>.api_trace.csv, kernel_trace.csv, copy_trace.csv (a row per event)
  bool json = true;          // json: the timeline views <base>_copy.json (and _stream.json)
  bool html = true;          // html: <base>.report.html
  bool summary_json = true;  // summary: <base>.summary.json (what prof --compare reads)
  // Over this many API calls the per-row outputs nobody asked for by name (trace CSVs, about
  // 160 MB per million calls, and the JSON timeline, about 460 MB, which <base>.pftrace holds in
  // a third of that) are left out, and the summary says how to write them; 0: never.
  int64_t big_run_calls = 0;
  // The findings (report/findings.hpp) end the summary and open the HTML report, unless the db
  // holds more API calls than this (the rules hold a process's calls and work in memory, about 135
  // bytes each; `prof --db x.db --analyze` still runs them); 0: never analysed in the reports.
  int64_t findings_max_calls = 250'000;
  AnalyzeOptions analyze;  // their thresholds (--analyze-set)
  // The database this run wrote (a profiled run's, not --db's input): named first under "Files
  // written", since it is the file every other output comes from.
  std::string written_db;
  // Only API calls with sequence in [first, last] and the kernels/copies they enqueued.
  std::optional<std::pair<int64_t, int64_t>> index_range;
  // Which kernels the kernel CSVs, timelines, HTML and summaries show, and their names (the API
  // calls stay): --kernel-include-regex, --kernel-exclude-regex, --kernel-iteration-range,
  // --truncate-kernels, --mangled-kernels.
  KernelFilterOptions kernels;
  // A timeline with more events than this (or more than kPartMaxBytes) is split by time into
  // parts <base>_copy.1.json, .2.json, ... of at most this many events (report/timeline_parts.hpp);
  // 0 never splits.
  int64_t json_max_events = 500'000;
  // Also <base>.kernel_by_range.csv: kernel statistics per innermost enclosing roctx push/pop
  // range.
  bool kernel_stats_by_range = false;
  // Called now and then with what is being done and how far it is (rows written of rows in
  // all, databases merged of databases): a terminal's progress line.
  std::function<void(std::string_view stage, int64_t done, int64_t total)> progress;
};

// One timeline file: a whole view, or one part of it. Times are ns from the timeline's ts 0.
struct TimelinePartFile {
  std::string path;
  std::string view;  // "copy" or "stream" (JSON), "pftrace" (<base>.pftrace)
  int64_t begin_ns;  // earliest event in it
  int64_t end_ns;    // latest event end in it
  int64_t events;
};

struct ReportResult {
  std::vector<std::string> files_written;  // full paths, in the order written
  std::vector<std::string> warnings;       // one line each (a trace too large for viewers)
  std::vector<std::string> notes;  // what was written differently and why (a split timeline)
  std::vector<TimelinePartFile> timeline_parts;
  // Outputs that could not be written, one line each naming the file and why; the others were.
  // (When none could be written, write_reports throws ReportOutputError instead.)
  std::vector<std::string> failed;
};

// Writes <base>.<api_csv_stem>.csv per runtime (<base>.hiptrace.csv for HIP),
// <base>.kernel.csv, <base>_copy.json (and <base>_stream.json) into
// output_dir, then the summary to `summary_out` when summary_to_stdout (and summary_out) is set.
// A merged database (report/merged_db.hpp) gives the same files over all its processes.
// Each file is written to a temp file and renamed at the end; one whose name is taken by something
// prof may not replace (a symlink, a foreign file) is left out and named in ReportResult::failed.
// Throws ReportError (one line naming the file and what is wrong) on a bad database,
// ReportOutputError when an output cannot be written or would replace a file that is not prof's.
ReportResult write_reports(const std::string& db_path, const ReportOptions& opt,
                           std::FILE* summary_out);

// A run of several processes: the line that names one before its summary
// ("== Process 4242, rank 0, host h: ./app 1 =="), and one summary over all of them (the same
// tables, every process's calls added up; no file list), with the kernel filters of each process's
// reports. Throw ReportError on a bad database or a bad regex.
std::string process_heading(const std::string& db_path);
void write_combined_summary(const std::vector<std::string>& db_paths, std::FILE* summary_out,
                            const KernelFilterOptions& kernel_filters = {});

}  // namespace prof::report
