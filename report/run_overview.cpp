#include "report/run_overview.hpp"

#include <algorithm>
#include <charconv>

namespace prof::report {

namespace {

std::optional<int64_t> number(std::string_view text) {
  int64_t value = 0;
  if (text.empty() || std::from_chars(text.data(), text.data() + text.size(), value).ptr !=
                          text.data() + text.size())
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
  // The program's first and last recorded moments. An older db without meta start_ns starts at
  // its first event.
  std::optional<int64_t> first, last;
  Statement st = db.prepare(
      "SELECT MIN(b), MAX(e) FROM (SELECT MIN(begin_ns) AS b, MAX(end_ns) AS e FROM api_calls"
      " UNION ALL SELECT MIN(device_begin_ns), MAX(device_end_ns) FROM kernels"
      " UNION ALL SELECT MIN(device_begin_ns), MAX(device_end_ns) FROM copies)");
  if (st.step()) {
    if (!st.column_is_null(0)) first = st.column_int(0);
    if (!st.column_is_null(1)) last = st.column_int(1);
  }
  o.start_ns = start ? *start : first.value_or(0);
  o.db_completed_ns = std::max(o.start_ns, end ? *end : last.value_or(o.start_ns));
  o.end_ns = std::clamp(last.value_or(o.db_completed_ns), o.start_ns, o.db_completed_ns);
  return o;
}

void StreamBusyCollector::add(int64_t device, int64_t stream,
                              const std::optional<int64_t>& begin_ns,
                              const std::optional<int64_t>& end_ns, int64_t kernel) {
  if (!begin_ns || !end_ns) return;  // only timed work keeps a stream busy
  auto [it, fresh] = streams_.try_emplace({device, stream});
  StreamBusy& s = it->second;
  if (fresh) {
    s.device = device;
    s.stream_index = stream;
    s.first_ns = *begin_ns;
    s.last_ns = *end_ns;
  }
  ++s.operations;
  s.kernels += kernel;
  s.busy_ns += *end_ns - *begin_ns;
  s.first_ns = std::min(s.first_ns, *begin_ns);
  s.last_ns = std::max(s.last_ns, *end_ns);
}

std::vector<StreamBusy> StreamBusyCollector::take(int64_t process_index) {
  std::vector<StreamBusy> streams;
  for (auto& [key, s] : streams_) {
    s.process_index = process_index;
    streams.push_back(s);
  }
  streams_.clear();
  return streams;
}

std::vector<StreamBusy> query_stream_busy(Database& db, const RowFilter& filter,
                                          int64_t process_index) {
  StreamBusyCollector streams;
  scan_events(db, filter, {&streams});
  return streams.take(process_index);
}

}  // namespace prof::report
