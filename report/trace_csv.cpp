#include "report/trace_csv.hpp"

#include <algorithm>
#include <map>

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

void write_kernel_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  Statement st = db.prepare(
      "SELECT COALESCE(r.name, ''), c.thread_id, k.device, k.stream_index, k.correlation_id, k.name_id, s.value,"
      " k.function_address, k.device_begin_ns, k.device_end_ns, k.grid_x, k.grid_y, k.grid_z, k.block_x,"
      " k.block_y, k.block_z, k.shared_mem_bytes FROM kernels k"
      " LEFT JOIN api_calls c ON c.correlation_id = k.correlation_id"
      " LEFT JOIN strings s ON s.string_id = k.name_id"
      " LEFT JOIN streams t ON t.stream_index = k.stream_index"
      " LEFT JOIN runtimes r ON r.runtime_id = t.runtime_id WHERE " +
      filter.activity_condition("k") +
      " ORDER BY k.device_begin_ns IS NULL, k.device_begin_ns, k.correlation_id");
  filter.bind(st);
  KernelNameCache names;
  CsvWriter csv(out);
  while (st.step()) {
    std::string name;
    if (!st.column_is_null(5)) {
      name = names.get(st.column_int(5), st.column_text(6));
    } else {
      char text[64];
      std::snprintf(text, sizeof text, "unknown kernel at 0x%llx", static_cast<unsigned long long>(st.column_int(7)));
      name = text;
    }
    csv.row({"KERNEL_DISPATCH", st.column_text(0), num(pid), maybe(st, 1), num(st.column_int(2)),
             num(st.column_int(3)), num(st.column_int(4)), name, maybe(st, 8), maybe(st, 9), duration(st, 8, 9),
             num(st.column_int(10)), num(st.column_int(11)), num(st.column_int(12)), num(st.column_int(13)),
             num(st.column_int(14)), num(st.column_int(15)), num(st.column_int(16))});
  }
}

void write_copy_trace_header(TextSink& out) {
  CsvWriter(out).begin({"Kind", "Runtime", "Process_Id", "Thread_Id", "Device", "Stream_Id", "Correlation_Id",
                        "Direction", "Size", "Start_Timestamp", "End_Timestamp", "Duration_Ns", "Bandwidth_GBps"});
}

void write_copy_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  Statement st = db.prepare(
      "SELECT COALESCE(r.name, ''), c.thread_id, m.device, m.stream_index, m.correlation_id,"
      " COALESCE(d.name, 'Direction ' || m.direction), m.bytes, m.device_begin_ns, m.device_end_ns FROM copies m"
      " LEFT JOIN api_calls c ON c.correlation_id = m.correlation_id"
      " LEFT JOIN copy_directions d ON d.direction = m.direction"
      " LEFT JOIN streams t ON t.stream_index = m.stream_index"
      " LEFT JOIN runtimes r ON r.runtime_id = t.runtime_id WHERE " +
      filter.activity_condition("m") +
      " ORDER BY m.device_begin_ns IS NULL, m.device_begin_ns, m.correlation_id");
  filter.bind(st);
  CsvWriter csv(out);
  while (st.step()) {
    const std::string direction(st.column_text(5));
    const bool timed = !st.column_is_null(7) && !st.column_is_null(8);
    csv.row({direction == "Memset" ? "MEMORY_SET" : "MEMORY_COPY", st.column_text(0), num(pid), maybe(st, 1),
             num(st.column_int(2)), num(st.column_int(3)), num(st.column_int(4)), direction, num(st.column_int(6)),
             maybe(st, 7), maybe(st, 8), duration(st, 7, 8),
             timed ? bandwidth_text(st.column_int(6), st.column_int(8) - st.column_int(7)) : ""});
  }
}

void write_api_trace_header(TextSink& out) {
  CsvWriter(out).begin({"Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Sequence",
                        "Start_Timestamp", "End_Timestamp", "Duration_Ns", "Result", "Device", "Stream_Id",
                        "Bytes"});
}

void write_api_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  Statement st = db.prepare(
      "SELECT COALESCE(r.name, ''), COALESCE(n.name, 'unknown API ' || c.api_id), c.thread_id, c.correlation_id,"
      " c.sequence, c.begin_ns, c.end_ns, c.result, c.device, c.stream_index, c.bytes FROM api_calls c"
      " LEFT JOIN api_names n ON n.api_id = c.api_id LEFT JOIN runtimes r ON r.runtime_id = n.runtime_id WHERE " +
      filter.api_condition("c") + " ORDER BY c.begin_ns, c.thread_id, c.correlation_id");
  filter.bind(st);
  CsvWriter csv(out);
  while (st.step()) {
    csv.row({st.column_text(0), st.column_text(1), num(pid), num(st.column_int(2)), num(st.column_int(3)),
             maybe(st, 4), num(st.column_int(5)), num(st.column_int(6)), num(st.column_int(6) - st.column_int(5)),
             num(st.column_int(7)), num(st.column_int(8)), maybe(st, 9), num(st.column_int(10))});
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
