#include "report/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>

#include "report/demangle.hpp"
#include "report/profile.hpp"
#include "report/runtime_labels.hpp"
#include "report/stats_quantiles.hpp"
#include "report/time_format.hpp"

namespace prof::report {

int64_t NameStats::average_ns() const {
  return timed_calls > 0 ? rounded_div(total_ns, timed_calls) : 0;
}

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

using Accumulator = DurationAccumulator;

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
  into.median_ns = into.p95_ns = 0;  // not a function of the parts' (stats.hpp)
}

// Keys are ids; two ids can share a name (an API listed twice, a kernel stored both mangled and
// demangled). Merge them so the CSV keeps one row per name.
std::vector<NameStats> merge_same_names(std::vector<NameStats> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const NameStats& a, const NameStats& b) { return a.name < b.name; });
  // In place: a second vector would double the peak for a run of many kernel names (issue 42).
  size_t kept = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (kept > 0 && rows[kept - 1].name == rows[i].name)
      merge_into(rows[kept - 1], rows[i]);
    else if (kept++ != i)
      rows[kept - 1] = std::move(rows[i]);
  }
  rows.resize(kept);
  return rows;
}

}  // namespace

StatsTable merge_stats_tables(std::vector<StatsTable> tables) {
  if (tables.size() == 1) return std::move(tables.front());
  std::vector<NameStats> rows;
  for (StatsTable& table : tables)
    for (NameStats& row : table.rows) rows.push_back(std::move(row));
  return make_stats_table(merge_same_names(std::move(rows)));
}

StatsTable ApiStatsCollector::table(Database& db, int64_t runtime_id, bool with_unnamed) const {
  // runtime_id is the db's own integer; an id api_names does not hold counts under the first
  // runtime.
  std::map<int64_t, std::pair<int64_t, std::string>> names;  // api_id -> runtime, name
  Statement st = db.prepare("SELECT api_id, runtime_id, name FROM api_names");
  while (st.step()) names[st.column_int(0)] = {st.column_int(1), std::string(st.column_text(2))};
  std::vector<NameStats> rows;
  for (const auto& [api_id, totals] : by_api_) {
    auto name = names.find(api_id);
    if (name == names.end() ? !with_unnamed : name->second.first != runtime_id) continue;
    rows.push_back(totals.stats(name != names.end() ? name->second.second
                                                    : "unknown API " + std::to_string(api_id)));
  }
  return make_stats_table(merge_same_names(std::move(rows)));
}

StatsTable KernelStatsCollector::table() const {
  std::vector<NameStats> rows;
  rows.reserve(
      static_cast<size_t>(std::count_if(by_slot_.begin(), by_slot_.end(),
                                        [](const DurationAccumulator& a) { return a.calls > 0; })) +
      by_unknown_id_.size() + by_address_.size());
  for (size_t slot = 0; slot < by_slot_.size(); ++slot)
    if (by_slot_[slot].calls > 0)
      rows.push_back(by_slot_[slot].stats(std::string(names_.at_slot(slot))));
  for (const auto& [name_id, totals] : by_unknown_id_)
    rows.push_back(totals.stats("unknown kernel " + std::to_string(name_id)));
  for (const auto& [address, totals] : by_address_) {
    char text[64];
    std::snprintf(text, sizeof text, "unknown kernel at 0x%llx",
                  static_cast<unsigned long long>(address));
    rows.push_back(totals.stats(text));
  }
  return make_stats_table(merge_same_names(std::move(rows)));
}

StatsTable query_api_stats(Database& db, const RowFilter& filter, int64_t runtime_id,
                           bool with_unnamed) {
  ApiStatsCollector stats;
  ProfileBuilder profile;  // the median and p95 (report/stats_quantiles.hpp)
  scan_events(db, filter, {&stats, &profile.add_process(db)});
  StatsTable table = stats.table(db, runtime_id, with_unnamed);
  std::string runtime;
  for (const RuntimeLabels& r : read_runtimes(db))
    if (r.runtime_id == runtime_id) runtime = r.name;
  StatsQuantiles quantiles({{runtime, &table}}, nullptr, nullptr);
  profile.visit(std::ref(quantiles));
  return table;
}

StatsTable query_kernel_stats(Database& db, const RowFilter& filter) {
  auto names = std::make_shared<const KernelNames>(db);
  KernelStatsCollector stats(*names);
  ProfileBuilder profile;
  scan_events(db, filter, {&stats, &profile.add_process(db, names)});
  StatsTable table = stats.table();
  StatsQuantiles quantiles({}, &table, nullptr);
  profile.visit(std::ref(quantiles));
  return table;
}

}  // namespace prof::report
