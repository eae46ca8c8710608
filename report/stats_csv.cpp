#include "report/stats_csv.hpp"

#include "report/csv_writer.hpp"
#include "report/time_format.hpp"

namespace prof::report {

void write_stats_csv(const StatsTable& table, TextSink& sink) {
  CsvWriter csv(sink);
  // hipprof's columns first, in its order; MedianNs and P95Ns after them, so scripts keyed on
  // hipprof's columns (by name or by position) keep working.
  csv.begin({"Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDevNs", "MedianNs",
             "P95Ns"});
  for (const NameStats& row : table.rows) {
    csv.row({row.name, std::to_string(row.calls), std::to_string(row.total_ns), std::to_string(row.average_ns()),
             percent_text(row.total_ns, table.total_ns), std::to_string(row.min_ns), std::to_string(row.max_ns),
             std::to_string(row.stddev_ns()), std::to_string(row.median_ns), std::to_string(row.p95_ns)});
  }
  csv.end();
}

}  // namespace prof::report
