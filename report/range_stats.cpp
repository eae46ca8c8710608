#include "report/range_stats.hpp"

#include <cstdio>
#include <map>

#include "report/csv_columns.hpp"
#include "report/csv_writer.hpp"
#include "report/demangle.hpp"
#include "report/report_db.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

bool has_rows(Database& db, const char* table) {
  if (!db.table_exists(table)) return false;
  Statement st = db.prepare(std::string("SELECT 1 FROM ") + table + " LIMIT 1");
  return st.step();
}

void sort_rows(std::vector<RangeKernelStats>& rows) {
  std::sort(rows.begin(), rows.end(), [](const RangeKernelStats& a, const RangeKernelStats& b) {
    if (a.range != b.range) return a.range < b.range;
    if (a.kernel.total_ns != b.kernel.total_ns) return a.kernel.total_ns > b.kernel.total_ns;
    return a.kernel.name < b.kernel.name;
  });
}

}  // namespace

bool has_markers(Database& db) { return has_rows(db, "markers"); }
bool has_capture_windows(Database& db) { return has_rows(db, "capture_windows"); }

StatsTable query_range_stats(Database& db, RangeDurations* run) {
  if (!has_markers(db)) return {};
  std::map<std::string, std::pair<DurationAccumulator, DurationHistogram>> by_name;
  Statement st = db.prepare(
      "SELECT message, end_ns - begin_ns FROM markers WHERE kind IN ('push_pop', 'start_stop') AND "
      "end_ns IS NOT NULL");
  while (st.step()) {
    auto& [totals, durations] = by_name[std::string(st.column_text(0))];
    totals.add(true, st.column_int(1));
    durations.add(st.column_int(1));
  }
  std::vector<NameStats> rows;
  for (const auto& [name, both] : by_name) {
    rows.push_back(both.first.stats(name));
    rows.back().median_ns = both.second.percentile(50);
    rows.back().p95_ns = both.second.percentile(95);
    if (run) (*run)[name].absorb(both.second);
  }
  return make_stats_table(std::move(rows));
}

void fill_range_quantiles(StatsTable& table, const RangeDurations& run) {
  for (NameStats& row : table.rows) {
    auto it = run.find(row.name);
    if (it == run.end()) continue;
    row.median_ns = it->second.percentile(50);
    row.p95_ns = it->second.percentile(95);
  }
}

void fill_range_quantiles(RangeKernelTable& table, const RangeKernelDurations& run) {
  for (RangeKernelStats& row : table.rows) {
    auto it = run.find({row.range, row.kernel.name});
    if (it == run.end()) continue;
    row.kernel.median_ns = it->second.percentile(50);
    row.kernel.p95_ns = it->second.percentile(95);
  }
}

RangeKernelTable query_kernel_stats_by_range(Database& db, const RowFilter& filter,
                                             RangeKernelDurations* run) {
  RangeKernelTable table;
  const bool markers = has_markers(db);
  // The innermost range: of the push/pop ranges open on the call's thread at its begin, the
  // deepest.
  const std::string range_sql = markers ? "COALESCE((SELECT m.message FROM markers m WHERE m.kind "
                                          "= 'push_pop' AND m.thread_id = c.thread_id"
                                          " AND m.begin_ns <= c.begin_ns AND m.end_ns >= "
                                          "c.begin_ns ORDER BY m.level DESC, m.begin_ns DESC"
                                          " LIMIT 1), '')"
                                        : "''";
  Statement st =
      db.prepare("SELECT " + range_sql +
                 ", k.name_id, s.value, k.function_address, k.device_end_ns - k.device_begin_ns"
                 " FROM kernels k LEFT JOIN api_calls c ON c.correlation_id = k.correlation_id"
                 " LEFT JOIN strings s ON s.string_id = k.name_id WHERE " +
                 filter.activity_condition("k"));
  filter.bind(st);
  std::map<std::pair<std::string, std::string>, std::pair<DurationAccumulator, DurationHistogram>>
      by_key;
  while (st.step()) {
    std::string name;
    if (st.column_is_null(1)) {
      char text[64];
      std::snprintf(text, sizeof text, "unknown kernel at 0x%llx",
                    static_cast<unsigned long long>(st.column_int(3)));
      name = text;
    } else {
      name = st.column_is_null(2) ? "unknown kernel " + std::to_string(st.column_int(1))
                                  : demangle(st.column_text(2));
    }
    auto& [totals, durations] = by_key[{std::string(st.column_text(0)), std::move(name)}];
    totals.add(!st.column_is_null(4), st.column_int(4));
    if (!st.column_is_null(4)) durations.add(st.column_int(4));
  }
  for (const auto& [key, both] : by_key) {
    table.rows.push_back({key.first, both.first.stats(key.second)});
    NameStats& row = table.rows.back().kernel;
    row.median_ns = both.second.percentile(50);
    row.p95_ns = both.second.percentile(95);
    table.total_ns += row.total_ns;
    if (run) (*run)[key].absorb(both.second);
  }
  sort_rows(table.rows);
  return table;
}

RangeKernelTable merge_range_kernel_tables(std::vector<RangeKernelTable> tables) {
  if (tables.size() == 1) return std::move(tables.front());
  std::map<std::pair<std::string, std::string>, std::vector<StatsTable>> parts;
  for (RangeKernelTable& table : tables)
    for (RangeKernelStats& row : table.rows) {
      StatsTable one;
      one.total_ns = row.kernel.total_ns;
      one.calls = row.kernel.calls;
      one.rows.push_back(std::move(row.kernel));
      parts[{row.range, one.rows.front().name}].push_back(std::move(one));
    }
  RangeKernelTable merged;
  for (auto& [key, list] : parts) {
    StatsTable combined = merge_stats_tables(std::move(list));
    for (NameStats& row : combined.rows) {
      merged.total_ns += row.total_ns;
      merged.rows.push_back({key.first, std::move(row)});
    }
  }
  sort_rows(merged.rows);
  return merged;
}

void write_kernel_by_range_csv(const RangeKernelTable& table, TextSink& sink) {
  CsvWriter csv(sink);
  csv.begin_columns(kKernelByRangeColumns);
  for (const RangeKernelStats& row : table.rows) {
    const NameStats& k = row.kernel;
    csv.row({row.range, k.name, std::to_string(k.calls), std::to_string(k.total_ns),
             std::to_string(k.average_ns()), percent_text(k.total_ns, table.total_ns),
             std::to_string(k.min_ns), std::to_string(k.max_ns), std::to_string(k.stddev_ns()),
             std::to_string(k.median_ns), std::to_string(k.p95_ns)});
  }
  csv.end();
}

CaptureWindowsSummary read_capture_summary(Database& db) {
  CaptureWindowsSummary summary;
  if (auto control = meta_value(db, "capture_control")) summary.control = *control;
  if (!db.table_exists("capture_windows")) return summary;
  Statement st =
      db.prepare("SELECT COUNT(*), COALESCE(SUM(end_ns - begin_ns), 0) FROM capture_windows");
  if (st.step()) {
    summary.windows = st.column_int(0);
    summary.total_ns = st.column_int(1);
  }
  return summary;
}

}  // namespace prof::report
