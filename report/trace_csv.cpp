#include "report/trace_csv.hpp"

#include <algorithm>
#include <map>

#include "report/chrome_json_writer.hpp"
#include "report/csv_writer.hpp"
#include "report/demangle.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

std::string num(int64_t v) { return std::to_string(v); }
std::string maybe(Statement& st, int column) { return st.column_is_null(column) ? "" : num(st.column_int(column)); }
std::string duration(Statement& st, int begin, int end) {
  return st.column_is_null(begin) || st.column_is_null(end) ? "" : num(st.column_int(end) - st.column_int(begin));
}

}  // namespace

std::string bandwidth_text(int64_t bytes, int64_t ns) {
  if (ns <= 0) return "";
  // bytes / ns = GB/s; three decimals, rounded half up, integer arithmetic.
  const __int128 milli = (static_cast<__int128>(bytes) * 1000 * 2 + ns) / (2 * static_cast<__int128>(ns));
  const int64_t whole = static_cast<int64_t>(milli / 1000), frac = static_cast<int64_t>(milli % 1000);
  char text[48];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(whole), static_cast<long long>(frac));
  return text;
}

void write_kernel_trace_header(TextSink& out) {
  CsvWriter(out).begin({"Kind", "Runtime", "Process_Id", "Thread_Id", "Device", "Stream_Id", "Correlation_Id",
                        "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Duration_Ns", "Grid_Dim_X", "Grid_Dim_Y",
                        "Grid_Dim_Z", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
                        "Shared_Memory_Bytes"});
}

namespace {

// The runtime name of each stream index (streams.runtime_id -> runtimes.name): a small map.
std::map<int64_t, std::string> stream_runtimes(Database& db) {
  std::map<int64_t, std::string> names;
  Statement st = db.prepare(
      "SELECT t.stream_index, COALESCE(r.name, '') FROM streams t LEFT JOIN runtimes r ON r.runtime_id = t.runtime_id");
  while (st.step()) names[st.column_int(0)] = st.column_text(1);
  return names;
}

const std::string& runtime_of(const std::map<int64_t, std::string>& names, int64_t stream_index) {
  static const std::string none;
  auto it = names.find(stream_index);
  return it == names.end() ? none : it->second;
}

}  // namespace

void write_kernel_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  // Launch order (correlation id, the table's own order: no sort); names and runtimes from small
  // caches, not joins per row.
  const std::map<int64_t, std::string> runtimes = stream_runtimes(db);
  Statement st = db.prepare(
      "SELECT c.thread_id, k.device, k.stream_index, k.correlation_id, k.name_id, k.function_address,"
      " k.device_begin_ns, k.device_end_ns, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,"
      " k.shared_mem_bytes FROM kernels k LEFT JOIN api_calls c ON c.correlation_id = k.correlation_id WHERE " +
      filter.activity_condition("k") + " ORDER BY k.correlation_id");
  filter.bind(st);
  Statement stored = db.prepare("SELECT value FROM strings WHERE string_id = ?1");
  std::map<int64_t, std::string> names;  // name_id -> CSV field
  CsvWriter csv(out);
  while (st.step()) {
    std::string name;
    if (!st.column_is_null(4)) {
      const int64_t id = st.column_int(4);
      auto it = names.find(id);
      if (it == names.end()) {
        stored.bind(1, id);
        it = names.emplace(id, stored.step() ? demangle(stored.column_text(0)) : "unknown kernel " + num(id)).first;
        stored.reset();
      }
      name = it->second;
    } else {
      char text[64];
      std::snprintf(text, sizeof text, "unknown kernel at 0x%llx", static_cast<unsigned long long>(st.column_int(5)));
      name = text;
    }
    csv.row({"KERNEL_DISPATCH", runtime_of(runtimes, st.column_int(2)), num(pid), maybe(st, 0), num(st.column_int(1)),
             num(st.column_int(2)), num(st.column_int(3)), name, maybe(st, 6), maybe(st, 7), duration(st, 6, 7),
             num(st.column_int(8)), num(st.column_int(9)), num(st.column_int(10)), num(st.column_int(11)),
             num(st.column_int(12)), num(st.column_int(13)), num(st.column_int(14))});
  }
}

void write_copy_trace_header(TextSink& out) {
  CsvWriter(out).begin({"Kind", "Runtime", "Process_Id", "Thread_Id", "Device", "Stream_Id", "Correlation_Id",
                        "Direction", "Size", "Start_Timestamp", "End_Timestamp", "Duration_Ns", "Bandwidth_GBps"});
}

void write_copy_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  const std::map<int64_t, std::string> runtimes = stream_runtimes(db);
  std::map<int64_t, std::string> directions;
  {
    Statement d = db.prepare("SELECT direction, name FROM copy_directions");
    while (d.step()) directions[d.column_int(0)] = d.column_text(1);
  }
  Statement st = db.prepare(
      "SELECT c.thread_id, m.device, m.stream_index, m.correlation_id, m.direction, m.bytes, m.device_begin_ns,"
      " m.device_end_ns FROM copies m LEFT JOIN api_calls c ON c.correlation_id = m.correlation_id WHERE " +
      filter.activity_condition("m") + " ORDER BY m.correlation_id");
  filter.bind(st);
  CsvWriter csv(out);
  while (st.step()) {
    auto it = directions.find(st.column_int(4));
    const std::string direction = it != directions.end() ? it->second : "Direction " + num(st.column_int(4));
    const bool timed = !st.column_is_null(6) && !st.column_is_null(7);
    csv.row({direction == "Memset" ? "MEMORY_SET" : "MEMORY_COPY", runtime_of(runtimes, st.column_int(2)), num(pid),
             maybe(st, 0), num(st.column_int(1)), num(st.column_int(2)), num(st.column_int(3)), direction,
             num(st.column_int(5)), maybe(st, 6), maybe(st, 7), duration(st, 6, 7),
             timed ? bandwidth_text(st.column_int(5), st.column_int(7) - st.column_int(6)) : ""});
  }
}

void write_api_trace_header(TextSink& out) {
  CsvWriter(out).begin({"Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Sequence",
                        "Start_Timestamp", "End_Timestamp", "Duration_Ns", "Result", "Device", "Stream_Id",
                        "Bytes"});
}

void write_api_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  // Names come from a small map, not a join per row; rows in the table's own order (correlation id:
  // no sort, a sequential scan). `Sequence` gives the global call order.
  std::map<int64_t, std::string> prefix;  // api_id -> "domain,function,pid,"
  {
    Statement names = db.prepare(
        "SELECT n.api_id, COALESCE(r.name, ''), n.name FROM api_names n LEFT JOIN runtimes r ON r.runtime_id = "
        "n.runtime_id");
    while (names.step())
      prefix[names.column_int(0)] = csv_field(names.column_text(1)) + "," + csv_field(names.column_text(2)) + "," +
                                    num(pid) + ",";
  }
  Statement st = db.prepare(
      "SELECT c.api_id, c.thread_id, c.correlation_id, c.sequence, c.begin_ns, c.end_ns, c.result, c.device,"
      " c.stream_index, c.bytes FROM api_calls c WHERE " +
      filter.api_condition("c") + " ORDER BY c.correlation_id");
  filter.bind(st);
  std::string line;
  while (st.step()) {
    line.clear();
    const int64_t api = st.column_int(0);
    auto it = prefix.find(api);
    if (it == prefix.end())
      it = prefix.emplace(api, ",unknown API " + num(api) + "," + num(pid) + ",").first;
    line += it->second;
    append_int(line, st.column_int(1));
    line += ',';
    append_int(line, st.column_int(2));
    line += ',';
    if (!st.column_is_null(3)) append_int(line, st.column_int(3));
    line += ',';
    append_int(line, st.column_int(4));
    line += ',';
    append_int(line, st.column_int(5));
    line += ',';
    append_int(line, st.column_int(5) - st.column_int(4));
    line += ',';
    append_int(line, st.column_int(6));
    line += ',';
    append_int(line, st.column_int(7));
    line += ',';
    if (!st.column_is_null(8)) append_int(line, st.column_int(8));
    line += ',';
    append_int(line, st.column_int(9));
    line += '\n';
    out.write(line);
  }
}

std::vector<CopyStats> query_copy_stats(Database& db, const RowFilter& filter) {
  Statement st = db.prepare(
      "SELECT COALESCE(d.name, 'Direction ' || m.direction), COUNT(*), SUM(m.bytes),"
      " COUNT(m.device_end_ns - m.device_begin_ns),"
      " SUM(CASE WHEN m.device_end_ns - m.device_begin_ns IS NULL THEN 0 ELSE m.bytes END),"
      " COALESCE(SUM(m.device_end_ns - m.device_begin_ns), 0), MIN(m.device_end_ns - m.device_begin_ns),"
      " MAX(m.device_end_ns - m.device_begin_ns)"
      " FROM copies m LEFT JOIN copy_directions d ON d.direction = m.direction WHERE " +
      filter.activity_condition("m") + " GROUP BY 1");
  filter.bind(st);
  std::vector<CopyStats> stats;
  while (st.step())
    stats.push_back({std::string(st.column_text(0)), st.column_int(1), st.column_int(3), st.column_int(2),
                     st.column_int(4), st.column_int(5), st.column_int(6), st.column_int(7)});
  return stats;
}

std::vector<CopyStats> merge_copy_stats(std::vector<std::vector<CopyStats>> parts) {
  std::map<std::string, CopyStats> by_direction;
  for (auto& part : parts)
    for (CopyStats& s : part) {
      auto [it, fresh] = by_direction.emplace(s.direction, s);
      if (fresh) continue;
      CopyStats& m = it->second;
      if (s.timed_calls > 0) {
        m.min_ns = m.timed_calls > 0 ? std::min(m.min_ns, s.min_ns) : s.min_ns;
        m.max_ns = std::max(m.max_ns, s.max_ns);
      }
      m.calls += s.calls;
      m.timed_calls += s.timed_calls;
      m.bytes += s.bytes;
      m.timed_bytes += s.timed_bytes;
      m.total_ns += s.total_ns;
    }
  std::vector<CopyStats> merged;
  for (auto& [direction, s] : by_direction) merged.push_back(s);
  return merged;
}

void write_copy_stats(const std::vector<CopyStats>& stats, TextSink& out) {
  std::vector<CopyStats> rows = stats;
  std::sort(rows.begin(), rows.end(), [](const CopyStats& a, const CopyStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.direction < b.direction;
  });
  int64_t grand = 0;
  for (const CopyStats& s : rows) grand += s.total_ns;
  CsvWriter csv(out);
  csv.begin({"Direction", "Calls", "TotalBytes", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs",
             "BandwidthGBps"});
  for (const CopyStats& s : rows)
    csv.row({s.direction, num(s.calls), num(s.bytes), num(s.total_ns),
             num(s.timed_calls > 0 ? rounded_div(s.total_ns, s.timed_calls) : 0), percent_text(s.total_ns, grand),
             num(s.min_ns), num(s.max_ns), bandwidth_text(s.timed_bytes, s.total_ns)});
}

}  // namespace prof::report
