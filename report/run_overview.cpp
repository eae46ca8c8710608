#include "report/run_overview.hpp"

#include <algorithm>
#include <charconv>

namespace prof::report {

namespace {

std::optional<int64_t> number(std::string_view text) {
  int64_t value = 0;
  if (text.empty() || std::from_chars(text.data(), text.data() + text.size(), value).ptr != text.data() + text.size())
    return std::nullopt;
  return value;
}

}  // namespace

ProcessOverview read_process_overview(Database& db, const SourceProcess& process) {
  ProcessOverview o;
  o.process = process;
  std::optional<int64_t> start, end;
  for (const auto& [key, value] : read_meta(db)) {
    if (key == "runtime") o.runtimes = value;
    if (key == "prof_version") o.prof_version = value;
    if (key == "wall_start_unix_ns") o.wall_start_unix_ns = number(value);
    if (key == "start_ns") start = number(value);
    if (key == "end_ns") end = number(value);
    if (key == "incomplete") o.incomplete = true;
  }
  if (!start || !end) {
    Statement st = db.prepare(
        "SELECT MIN(b), MAX(e) FROM (SELECT MIN(begin_ns) AS b, MAX(end_ns) AS e FROM api_calls"
        " UNION ALL SELECT MIN(device_begin_ns), MAX(device_end_ns) FROM kernels"
        " UNION ALL SELECT MIN(device_begin_ns), MAX(device_end_ns) FROM copies)");
    if (st.step()) {
      if (!start && !st.column_is_null(0)) start = st.column_int(0);
      if (!end && !st.column_is_null(1)) end = st.column_int(1);
    }
  }
  o.start_ns = start.value_or(0);
  o.end_ns = std::max(o.start_ns, end.value_or(o.start_ns));
  return o;
}

std::vector<StreamBusy> query_stream_busy(Database& db, const RowFilter& filter, int64_t process_index) {
  Statement st = db.prepare(
      "SELECT device, stream_index, COUNT(*), SUM(kernel), SUM(device_end_ns - device_begin_ns),"
      " MIN(device_begin_ns), MAX(device_end_ns) FROM ("
      " SELECT k.device, k.stream_index, k.device_begin_ns, k.device_end_ns, 1 AS kernel FROM kernels k"
      " WHERE k.device_begin_ns IS NOT NULL AND k.device_end_ns IS NOT NULL AND " +
      filter.activity_condition("k") +
      " UNION ALL SELECT m.device, m.stream_index, m.device_begin_ns, m.device_end_ns, 0 FROM copies m"
      " WHERE m.device_begin_ns IS NOT NULL AND m.device_end_ns IS NOT NULL AND " +
      filter.activity_condition("m") + ") GROUP BY device, stream_index ORDER BY device, stream_index");
  filter.bind(st);
  std::vector<StreamBusy> streams;
  while (st.step())
    streams.push_back({process_index, st.column_int(0), st.column_int(1), st.column_int(2), st.column_int(3),
                       st.column_int(4), st.column_int(5), st.column_int(6)});
  return streams;
}

}  // namespace prof::report
