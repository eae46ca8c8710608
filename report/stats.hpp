// Per-name duration statistics (the rows of the per-runtime API CSVs and the .kernel.csv file and of the
// summary tables). SQLite aggregates; the report holds one small record per distinct name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "collector/sqlite_db.hpp"
#include "report/report_db.hpp"

namespace prof::report {

struct NameStats {
  std::string name;         // API name, or the demangled kernel name (raw bytes; writers repair UTF-8)
  int64_t calls = 0;        // every call or launch, timed or not
  int64_t timed_calls = 0;  // those with a duration (kernels without device times are not)
  int64_t total_ns = 0;
  int64_t min_ns = 0;            // 0 when timed_calls == 0
  int64_t max_ns = 0;            // 0 when timed_calls == 0
  double squared_deviation = 0;  // sum over timed calls of (duration - mean)^2, in ns^2

  int64_t average_ns() const;  // total_ns / timed_calls rounded half up; 0 without timed calls
  int64_t stddev_ns() const;   // population standard deviation, rounded to the nearest ns
};

struct StatsTable {
  std::vector<NameStats> rows;  // by total_ns descending, then name ascending (bytewise)
  int64_t total_ns = 0;         // sum of the rows' total_ns: the base of their percentages
  int64_t calls = 0;
};

// API durations are end_ns - begin_ns of api_calls, grouped by api_names.name.
// The calls of one runtime; `with_unnamed` also counts calls whose api_id api_names lacks.
StatsTable query_api_stats(Database& db, const RowFilter& filter, int64_t runtime_id, bool with_unnamed);
// Kernel durations are device_end_ns - device_begin_ns, grouped by the kernel's (demangled) name;
// launches with NULL device times count in `calls` only.
StatsTable query_kernel_stats(Database& db, const RowFilter& filter);

// One table over several processes' tables: rows of the same name are combined (counts and
// totals add; squared deviations combine exactly as one pass over all durations would give).
StatsTable merge_stats_tables(std::vector<StatsTable> tables);

// Builds a table from unsorted rows: sorts them and sums the totals. Exposed for tests.
StatsTable make_stats_table(std::vector<NameStats> rows);

}  // namespace prof::report
