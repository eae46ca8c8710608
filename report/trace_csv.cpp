#include "report/trace_csv.hpp"

#include <algorithm>
#include <map>

#include "report/chrome_json_writer.hpp"
#include "report/csv_columns.hpp"
#include "report/csv_writer.hpp"
#include "report/demangle.hpp"
#include "report/text_put.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

}  // namespace

namespace {

// bytes / ns = GB/s with three decimals, rounded half up, integer arithmetic; nothing when ns <= 0.
char* put_bandwidth(char* p, int64_t bytes, int64_t ns) {
  if (ns <= 0) return p;
  const __int128 milli =
      (static_cast<__int128>(bytes) * 1000 * 2 + ns) / (2 * static_cast<__int128>(ns));
  const int64_t whole = static_cast<int64_t>(milli / 1000),
                frac = static_cast<int64_t>(milli % 1000);
  p = put_int(p, whole);
  p[0] = '.';
  p[1] = static_cast<char>('0' + frac / 100);
  p[2] = static_cast<char>('0' + frac / 10 % 10);
  p[3] = static_cast<char>('0' + frac % 10);
  return p + 4;
}
constexpr size_t kBandwidthChars = 64;  // a 128-bit quotient's digits, a point and three decimals

}  // namespace

std::string bandwidth_text(int64_t bytes, int64_t ns) {
  char text[kBandwidthChars];
  return std::string(text, put_bandwidth(text, bytes, ns));
}

void write_kernel_trace_header(TextSink& out) { CsvWriter(out).begin_columns(kKernelTraceColumns); }

namespace {

// The runtime name of each stream index (streams.runtime_id -> runtimes.name): a small map.
std::map<int64_t, std::string> stream_runtimes(Database& db) {
  std::map<int64_t, std::string> names;
  Statement st = db.prepare(
      "SELECT t.stream_index, COALESCE(r.name, '') FROM streams t LEFT JOIN runtimes r ON "
      "r.runtime_id = t.runtime_id");
  while (st.step()) names[st.column_int(0)] = st.column_text(1);
  return names;
}

const std::string& runtime_of(const std::map<int64_t, std::string>& names, int64_t stream_index) {
  static const std::string none;
  auto it = names.find(stream_index);
  return it == names.end() ? none : it->second;
}

// The columns a kernel row and a copy row begin with:
// Kind,Runtime,Pid,Tid,Device,Stream,Correlation,
// (`line` is sized for them: device_head_chars).
template <typename Row>
char* put_device_head(char* p, std::string_view kind, const std::string& runtime,
                      const std::string& pid, const Row& r) {
  p = put(p, kind);
  *p++ = ',';
  p = put(p, runtime);
  *p++ = ',';
  p = put(p, pid);
  *p++ = ',';
  if (r.call_thread_id) p = put_int(p, *r.call_thread_id);
  *p++ = ',';
  p = put_int(p, r.device);
  *p++ = ',';
  p = put_int(p, r.stream_index);
  *p++ = ',';
  p = put_int(p, r.correlation_id);
  *p++ = ',';
  return p;
}
size_t device_head_chars(std::string_view kind, const std::string& runtime,
                         const std::string& pid) {
  return kind.size() + runtime.size() + pid.size() + 4 * kIntChars + 7;
}

}  // namespace

KernelTraceWriter::KernelTraceWriter(Database& db, int64_t pid, TextSink& out)
    : db_(db), out_(out), pid_(num(pid)) {
  for (const auto& [stream, runtime] : stream_runtimes(db)) runtimes_[stream] = csv_field(runtime);
}

void KernelTraceWriter::kernel(const KernelRow& r) {
  // Names and runtimes come from small caches, not joins per row.
  static constexpr std::string_view kKind = "KERNEL_DISPATCH";
  const std::string& runtime = runtime_of(runtimes_, r.stream_index);
  std::string_view name;
  char unknown[64];
  if (r.name_id) {
    if (!has_field_ || field_id_ != *r.name_id) {
      if (!r.names && !own_names_) own_names_ = std::make_unique<KernelNames>(db_);
      const std::string_view text =
          (r.names ? *r.names : *own_names_).name_or_unknown(*r.name_id, unknown_);
      // Most names are plain: printable ASCII without a comma, quote, backslash (escapes may double
      // it) or formula sign is its own field.
      const bool plain =
          !csv_formula_like(text) && std::all_of(text.begin(), text.end(), [](char c) {
            return c >= 0x20 && c < 0x7f && c != ',' && c != '"' && c != '\\';
          });
      field_ = plain ? std::string(text) : csv_field(text);
      field_id_ = *r.name_id;
      has_field_ = true;
    }
    name = field_;
  } else {
    name = std::string_view(unknown, static_cast<size_t>(std::snprintf(
                                         unknown, sizeof unknown, "unknown kernel at 0x%llx",
                                         static_cast<unsigned long long>(r.function_address))));
  }
  char* const line = line_.at_least(device_head_chars(kKind, runtime, pid_) + name.size() +
                                    10 * (kIntChars + 1) + 2);
  char* p = put_device_head(line, kKind, runtime, pid_, r);
  p = put(p, name);
  *p++ = ',';
  if (r.device_begin_ns) p = put_int(p, *r.device_begin_ns);
  *p++ = ',';
  if (r.device_end_ns) p = put_int(p, *r.device_end_ns);
  *p++ = ',';
  if (r.device_begin_ns && r.device_end_ns) p = put_int(p, *r.device_end_ns - *r.device_begin_ns);
  for (int64_t v :
       {r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2], r.shared_mem_bytes}) {
    *p++ = ',';
    p = put_int(p, v);
  }
  *p++ = '\n';
  out_.write(line_.text(p));
}

void write_kernel_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  // Launch order (correlation id, the table's own order: no sort).
  KernelTraceWriter writer(db, pid, out);
  scan_events(db, filter, {&writer});
}

void write_copy_trace_header(TextSink& out) { CsvWriter(out).begin_columns(kCopyTraceColumns); }

CopyTraceWriter::CopyTraceWriter(Database& db, int64_t pid, TextSink& out)
    : out_(out), pid_(num(pid)) {
  for (const auto& [stream, runtime] : stream_runtimes(db)) runtimes_[stream] = csv_field(runtime);
  Statement d = db.prepare("SELECT direction, name FROM copy_directions");
  while (d.step()) {
    std::string name(d.column_text(1));
    directions_[d.column_int(0)] = {name, csv_field(name)};
  }
}

void CopyTraceWriter::copy(const CopyRow& r) {
  auto it = directions_.find(r.direction);
  if (it == directions_.end()) {
    std::string name = "Direction " + num(r.direction);
    it = directions_.emplace(r.direction, std::pair{name, csv_field(name)}).first;
  }
  const auto& [direction, direction_field] = it->second;
  const bool timed = r.device_begin_ns && r.device_end_ns;
  const std::string_view kind = direction == "Memset" ? "MEMORY_SET" : "MEMORY_COPY";
  const std::string& runtime = runtime_of(runtimes_, r.stream_index);
  char* const line =
      line_.at_least(device_head_chars(kind, runtime, pid_) + direction_field.size() +
                     4 * (kIntChars + 1) + kBandwidthChars + 3);
  char* p = put_device_head(line, kind, runtime, pid_, r);
  p = put(p, direction_field);
  *p++ = ',';
  p = put_int(p, r.bytes);
  *p++ = ',';
  if (r.device_begin_ns) p = put_int(p, *r.device_begin_ns);
  *p++ = ',';
  if (r.device_end_ns) p = put_int(p, *r.device_end_ns);
  *p++ = ',';
  if (timed) p = put_int(p, *r.device_end_ns - *r.device_begin_ns);
  *p++ = ',';
  if (timed)
    p = put_bandwidth(p, r.bytes, *r.device_end_ns - *r.device_begin_ns);  // digits and a point
  *p++ = '\n';
  out_.write(line_.text(p));
}

void write_copy_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  CopyTraceWriter writer(db, pid, out);
  scan_events(db, filter, {&writer});
}

void write_api_trace_header(TextSink& out) { CsvWriter(out).begin_columns(kApiTraceColumns); }

ApiTraceWriter::ApiTraceWriter(Database& db, int64_t pid, TextSink& out) : pid_(pid), out_(out) {
  // Names come from a small map, not a join per row.
  Statement names = db.prepare(
      "SELECT n.api_id, COALESCE(r.name, ''), n.name FROM api_names n LEFT JOIN runtimes r ON "
      "r.runtime_id = "
      "n.runtime_id");
  while (names.step())
    prefix_[names.column_int(0)] = csv_field(names.column_text(1)) + "," +
                                   csv_field(names.column_text(2)) + "," + num(pid) + ",";
}

void ApiTraceWriter::api(const ApiRow& r) {
  auto it = prefix_.find(r.api_id);
  if (it == prefix_.end())
    it = prefix_.emplace(r.api_id, ",unknown API " + num(r.api_id) + "," + num(pid_) + ",").first;
  const std::string& prefix = it->second;
  char* const line = line_.at_least(prefix.size() + 10 * (kIntChars + 1) + 1);
  char* p = put(line, prefix);
  p = put_int(p, r.thread_id);
  *p++ = ',';
  p = put_int(p, r.correlation_id);
  *p++ = ',';
  if (r.sequence) p = put_int(p, *r.sequence);
  *p++ = ',';
  p = put_int(p, r.begin_ns);
  *p++ = ',';
  p = put_int(p, r.end_ns);
  *p++ = ',';
  p = put_int(p, r.end_ns - r.begin_ns);
  *p++ = ',';
  p = put_int(p, r.result);
  *p++ = ',';
  p = put_int(p, r.device);
  *p++ = ',';
  if (r.stream_index) p = put_int(p, *r.stream_index);
  *p++ = ',';
  p = put_int(p, r.bytes);
  *p++ = '\n';
  out_.write(line_.text(p));
}

void write_api_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out) {
  // Rows in the table's own order (correlation id: no sort, a sequential scan). `Sequence` gives
  // the global call order.
  ApiTraceWriter writer(db, pid, out);
  scan_events(db, filter, {&writer});
}

CopyStatsCollector::CopyStatsCollector(Database& db) {
  Statement d = db.prepare("SELECT direction, name FROM copy_directions");
  while (d.step()) names_[d.column_int(0)] = d.column_text(1);
}

void CopyStatsCollector::copy(const CopyRow& r) {
  CopyStats*& s = by_direction_[r.direction];
  if (!s) {
    auto name = names_.find(r.direction);
    std::string text = name != names_.end() ? name->second : "Direction " + num(r.direction);
    s = &by_name_.try_emplace(text, CopyStats{text}).first->second;
  }
  ++s->calls;
  s->bytes += r.bytes;
  if (!r.device_begin_ns || !r.device_end_ns) return;
  const int64_t ns = *r.device_end_ns - *r.device_begin_ns;
  s->min_ns = s->timed_calls == 0 ? ns : std::min(s->min_ns, ns);
  s->max_ns = s->timed_calls == 0 ? ns : std::max(s->max_ns, ns);
  ++s->timed_calls;
  s->timed_bytes += r.bytes;
  s->total_ns += ns;
}

std::vector<CopyStats> CopyStatsCollector::take() {
  std::vector<CopyStats> stats;
  for (auto& [name, s] : by_name_) stats.push_back(std::move(s));
  by_name_.clear();
  by_direction_.clear();
  return stats;
}

std::vector<CopyStats> query_copy_stats(Database& db, const RowFilter& filter) {
  CopyStatsCollector stats(db);
  scan_events(db, filter, {&stats});
  return stats.take();
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
      m.median_ns = m.p95_ns =
          0;  // filled from the combined durations (report/stats_quantiles.hpp)
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
  csv.begin_columns(kCopyStatsColumns);
  for (const CopyStats& s : rows)
    csv.row({s.direction, num(s.calls), num(s.bytes), num(s.total_ns),
             num(s.timed_calls > 0 ? rounded_div(s.total_ns, s.timed_calls) : 0),
             percent_text(s.total_ns, grand), num(s.min_ns), num(s.max_ns),
             bandwidth_text(s.timed_bytes, s.total_ns), num(s.median_ns), num(s.p95_ns)});
}

}  // namespace prof::report
