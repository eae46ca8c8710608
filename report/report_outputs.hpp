// The report's outputs as a list: each output is a line of report_outputs() (its --output-format
// word, file name, whether the options want it, and the writer that writes it from the run's
// tables), which the report driver (report/report.cpp) iterates. An output is one writer and one
// line in the list (report_outputs.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/findings.hpp"
#include "report/html_report.hpp"
#include "report/kernel_filter.hpp"
#include "report/memory.hpp"
#include "report/merged_db.hpp"
#include "report/output_file.hpp"
#include "report/profile.hpp"
#include "report/range_stats.hpp"
#include "report/report.hpp"
#include "report/report_db.hpp"
#include "report/runtime_labels.hpp"
#include "report/stats.hpp"
#include "report/summary.hpp"
#include "report/timeline_events.hpp"
#include "report/timeline_output.hpp"
#include "report/trace_csv.hpp"

namespace prof::report {

// One output's files as written: created when first needed, committed in the list's order.
struct OutputSlot {
  bool opened = false;
  std::vector<std::unique_ptr<OutputFile>> files;
  std::unique_ptr<TimelineOutput> timeline;  // a timeline's, while it is written
};

// Everything the outputs are written from: the db and options, its processes and runtimes, what
// the light pass planned and what the pass over the events gathered. The driver fills it step by
// step (write_reports_from); the writers read it.
struct ReportRun {
  ReportRun(Database& d, const ReportOptions& o, ReportResult& r, const KernelMatcher& m)
      : db(d), opt(o), result(r), matcher(m), filter{o.index_range} {}
  Database& db;
  const ReportOptions& opt;
  ReportResult& result;
  const KernelMatcher& matcher;
  RowFilter filter;
  bool merged = false;
  std::unique_ptr<Database> second;  // the kernels' and copies' connection; null: one connection
  std::vector<SourceProcess> processes;
  std::vector<RuntimeLabels> runtimes;
  // The light pass's, per process: the timelines' time origin and lanes; their split plan.
  std::vector<EventExtents> extents;
  std::vector<TimelineLanes> lanes;
  std::vector<int64_t> part_starts;
  int64_t total_rows = 0;
  // The pass's, over all processes.
  std::vector<StatsTable> api;  // parallel to runtimes
  StatsTable kernels;
  std::vector<CopyStats> copy_stats;
  MemoryReport memory;
  std::vector<SummaryStream> summary_streams;  // every process's, for the terminal summary
  std::map<std::string, int64_t> drops;
  HtmlReport html;
  ProfileBuilder profile;
  // Markers (--hiptx-trace): ranges when the db holds markers, kernels by range when asked for.
  std::optional<StatsTable> ranges;
  std::optional<RangeKernelTable> kernels_by_range;
  std::vector<OutputSlot> outputs;  // parallel to report_outputs()
  // The findings for the summary and the HTML report (report.cpp analyze_run).
  std::optional<Analysis> analysis;
  FindingsView findings;
};

// How an output's files are named and made.
enum class OutputShape {
  kFile,        // <base><suffix>
  kPerRuntime,  // <base>.<api_csv_stem><suffix>, one per runtime in the db
  kPftrace,     // a timeline (TimelineOutput): <base><suffix>
  kCopyView,    // <base><suffix>, or split into parts <base>_copy.1.json, ...
  kStreamView,
};

// One output: a line of report_outputs(). A wanted output's files are created Tolerant (one
// refused at its name costs only itself), the others Unwanted: their writers still run, so the
// tables get what those give them, and nothing reaches the disk. A timeline not wanted is not
// written at all.
struct ReportOutput {
  std::string_view format;     // the --output-format word that asks for it
  std::string_view suffix;     // the file's name after <base>
  std::string_view signature;  // what an earlier file of this kind starts with (report_files.hpp)
  bool (*wanted)(const ReportRun&);
  OutputShape shape = OutputShape::kFile;
  void (*begin)(TextSink&) = nullptr;  // before the pass: a header
  // A consumer of each process's pass that writes its rows.
  std::unique_ptr<EventConsumer> (*rows)(Database&, int64_t pid, OutputFile&) = nullptr;
  // After the pass, from the run's tables; `index` is the runtime of a kPerRuntime file.
  void (*write)(ReportRun&, OutputFile&, size_t index) = nullptr;
  // Written before the others: summary.json, whose entries give the statistics tables their
  // median and p95 as they are written (the profile's histograms are the only ones kept).
  bool first = false;
};

// Every output, in the order the summary lists them under "Files written".
std::span<const ReportOutput> report_outputs();

bool is_timeline(OutputShape shape);

// Creates output k's files (once): Tolerant when wanted, Unwanted otherwise.
void open_files(ReportRun& run, size_t k);

}  // namespace prof::report
