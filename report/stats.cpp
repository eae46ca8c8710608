#include "report/stats.hpp"

#include <algorithm>
#include <cmath>

#include "report/demangle.hpp"
#include "report/time_format.hpp"

namespace prof::report {

int64_t NameStats::average_ns() const { return timed_calls > 0 ? rounded_div(total_ns, timed_calls) : 0; }

int64_t NameStats::stddev_ns() const {
  if (timed_calls <= 0 || squared_deviation <= 0) return 0;
  return std::llround(std::sqrt(squared_deviation / static_cast<double>(timed_calls)));
}

StatsTable make_stats_table(std::vector<NameStats> rows) {
  std::sort(rows.begin(), rows.end(), [](const NameStats& a, const NameStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  StatsTable table;
  for (const NameStats& row : rows) {
    table.total_ns += row.total_ns;
    table.calls += row.calls;
  }
  table.rows = std::move(rows);
  return table;
}

namespace {

// `durations` selects (key, dur): an integer key and dur NULL for untimed rows; `names` maps a
// key to its name. Two passes: g finds each key's mean, v sums squared deviations from it. This
// avoids the cancellation of sum(x^2) - n*mean^2, which loses all precision for long, steady
// durations. SUM over integers is exact (SQLite raises an error rather than overflow).
// The name of a kernel whose symbol was never resolved, from its key 'fn<address>'.
constexpr std::string_view kUnresolvedKernelSql =
    "printf('unknown kernel at 0x%x', CAST(substr(g.key, 3) AS INTEGER))";

std::string stats_sql(const std::string& durations, const std::string& names) {
  return "WITH d AS (" + durations +
         "), g AS (SELECT key, COUNT(*) AS calls, COUNT(dur) AS timed, COALESCE(SUM(dur), 0) AS total,"
         " COALESCE(MIN(dur), 0) AS low, COALESCE(MAX(dur), 0) AS high, AVG(dur) AS mean FROM d GROUP BY key),"
         " v AS (SELECT d.key AS key, TOTAL((d.dur - g.mean) * (d.dur - g.mean)) AS sq FROM d"
         " JOIN g ON g.key = d.key GROUP BY d.key)"
         " SELECT " + names + ", g.calls, g.timed, g.total, g.low, g.high, v.sq FROM g JOIN v ON v.key = g.key";
}

NameStats read_row(const Statement& st, std::string name) {
  NameStats row;
  row.name = std::move(name);
  row.calls = st.column_int(1);
  row.timed_calls = st.column_int(2);
  row.total_ns = st.column_int(3);
  row.min_ns = st.column_int(4);
  row.max_ns = st.column_int(5);
  row.squared_deviation = st.column_double(6);
  return row;
}

void merge_into(NameStats& into, const NameStats& row) {
  if (row.timed_calls > 0 && into.timed_calls > 0) {
    // Chan et al.'s pairwise combination of squared deviations.
    double na = static_cast<double>(into.timed_calls), nb = static_cast<double>(row.timed_calls);
    double delta = static_cast<double>(row.total_ns) / nb - static_cast<double>(into.total_ns) / na;
    into.squared_deviation += row.squared_deviation + delta * delta * na * nb / (na + nb);
    into.min_ns = std::min(into.min_ns, row.min_ns);
    into.max_ns = std::max(into.max_ns, row.max_ns);
  } else if (row.timed_calls > 0) {
    into.squared_deviation = row.squared_deviation;
    into.min_ns = row.min_ns;
    into.max_ns = row.max_ns;
  }
  into.calls += row.calls;
  into.timed_calls += row.timed_calls;
  into.total_ns += row.total_ns;
}

// Keys are ids; two ids can share a name (an API listed twice, a kernel stored both mangled and
// demangled). Merge them so the CSV keeps one row per name.
std::vector<NameStats> merge_same_names(std::vector<NameStats> rows) {
  std::sort(rows.begin(), rows.end(), [](const NameStats& a, const NameStats& b) { return a.name < b.name; });
  std::vector<NameStats> merged;
  for (NameStats& row : rows) {
    if (!merged.empty() && merged.back().name == row.name)
      merge_into(merged.back(), row);
    else
      merged.push_back(std::move(row));
  }
  return merged;
}

}  // namespace

StatsTable merge_stats_tables(std::vector<StatsTable> tables) {
  if (tables.size() == 1) return std::move(tables.front());
  std::vector<NameStats> rows;
  for (StatsTable& table : tables)
    for (NameStats& row : table.rows) rows.push_back(std::move(row));
  return make_stats_table(merge_same_names(std::move(rows)));
}

StatsTable query_api_stats(Database& db, const RowFilter& filter) {
  Statement st = db.prepare(
      stats_sql("SELECT c.api_id AS key, c.end_ns - c.begin_ns AS dur FROM api_calls c WHERE " +
                    filter.api_condition("c"),
                "COALESCE((SELECT name FROM api_names WHERE api_id = g.key), 'unknown API ' || g.key)"));
  filter.bind(st);
  std::vector<NameStats> rows;
  while (st.step()) rows.push_back(read_row(st, std::string(st.column_text(0))));
  return make_stats_table(merge_same_names(std::move(rows)));
}

StatsTable query_kernel_stats(Database& db, const RowFilter& filter) {
  // A kernel whose symbol was never resolved (name_id NULL) is grouped by its function address.
  Statement st = db.prepare(stats_sql(
      "SELECT COALESCE(k.name_id, 'fn' || k.function_address) AS key,"
      " k.device_end_ns - k.device_begin_ns AS dur FROM kernels k WHERE " + filter.activity_condition("k"),
      "CASE WHEN typeof(g.key) = 'integer' THEN COALESCE((SELECT value FROM strings WHERE string_id = g.key),"
      " 'unknown kernel ' || g.key) ELSE " + std::string(kUnresolvedKernelSql) + " END"));
  filter.bind(st);
  std::vector<NameStats> rows;
  while (st.step()) rows.push_back(read_row(st, demangle(st.column_text(0))));
  return make_stats_table(merge_same_names(std::move(rows)));
}

}  // namespace prof::report
