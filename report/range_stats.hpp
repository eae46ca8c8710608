// Marker statistics (--hiptx-trace): per range name, and kernels grouped by the range they were
// launched in. Read from the db's markers table (db/schema.hpp, schema 4); a db without one
// (older, or recorded without --hiptx-trace) has no ranges and these return empty tables.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/duration_histogram.hpp"
#include "report/stats.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

// Whether the (selected process's) db holds a markers table with at least one row.
bool has_markers(Database& db);
// Whether it holds capture windows (--trace-start off, --delay, --duration).
bool has_capture_windows(Database& db);

// Durations by range message (or range and kernel name), across a run's processes: what a merged
// table's median and p95 come from (merge_stats_tables cannot combine its parts'). Ranges are not
// events of the run profile (report/profile.hpp), so these keep their own; markers are few, and
// the kernels by range are written only on request (--kernel-stats-by-range).
using RangeDurations = std::map<std::string, DurationHistogram>;
using RangeKernelDurations = std::map<std::pair<std::string, std::string>, DurationHistogram>;

// Push/pop and start/stop ranges, grouped by message: calls, durations (end - begin; a range still
// open at exit ends at the process's end and counts as it is), median and p95. `run`, when given,
// also gathers the durations for fill_range_quantiles after the processes' tables are merged.
StatsTable query_range_stats(Database& db, RangeDurations* run = nullptr);
void fill_range_quantiles(StatsTable& table, const RangeDurations& run);

// Kernels grouped by the innermost push/pop range open on the launching thread when the launch
// call began (the deepest level), then by kernel name. `range` is "" outside every range.
struct RangeKernelStats {
  std::string range;
  NameStats kernel;
};
struct RangeKernelTable {
  std::vector<RangeKernelStats> rows;  // by range name, then kernel total time descending
  int64_t total_ns = 0;                // all kernels' device time: the base of the percentages
};
RangeKernelTable query_kernel_stats_by_range(Database& db, const RowFilter& filter,
                                             RangeKernelDurations* run = nullptr);
RangeKernelTable merge_range_kernel_tables(std::vector<RangeKernelTable> tables);
void fill_range_quantiles(RangeKernelTable& table, const RangeKernelDurations& run);

// <base>.kernel_by_range.csv: Range, then the kernel CSV's columns (docs/formats.md).
void write_kernel_by_range_csv(const RangeKernelTable& table, TextSink& sink);

// The capture windows of the (selected process's) db, for the summary: "3 windows, 1.2 s in all".
struct CaptureWindowsSummary {
  int64_t windows = 0;
  int64_t total_ns = 0;
  std::string control;  // meta capture_control: "--trace-start off", "--delay 1s --duration 2s"
};
CaptureWindowsSummary read_capture_summary(Database& db);

}  // namespace prof::report
