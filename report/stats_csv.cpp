#include "report/stats_csv.hpp"

#include "report/csv_columns.hpp"
#include "report/csv_writer.hpp"
#include "report/time_format.hpp"

namespace prof::report {

void write_stats_csv(const StatsTable& table, TextSink& sink) {
  CsvWriter csv(sink);
  csv.begin_columns(kStatsColumns);
  for (const NameStats& row : table.rows) {
    csv.row({row.name, std::to_string(row.calls), std::to_string(row.total_ns),
             std::to_string(row.average_ns()), percent_text(row.total_ns, table.total_ns),
             std::to_string(row.min_ns), std::to_string(row.max_ns),
             std::to_string(row.stddev_ns()), std::to_string(row.median_ns),
             std::to_string(row.p95_ns)});
  }
  csv.end();
}

}  // namespace prof::report
