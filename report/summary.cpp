#include "report/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "report/display_width.hpp"
#include "report/time_format.hpp"
#include "report/utf8.hpp"

namespace prof::report {

namespace {

// The numbers' columns of the API and kernel tables, right-aligned; with the two-space indent
// they leave kSummaryTableNameWidth columns of a kSummaryLineWidth line to the names.
constexpr size_t kCallsWidth = 8, kDurationWidth = 11, kPercentWidth = 9;
static_assert(2 + kSummaryTableNameWidth + kCallsWidth + 4 * kDurationWidth + kPercentWidth ==
              kSummaryLineWidth);

std::string duration_columns(int64_t total_ns, int64_t average_ns, int64_t median_ns,
                             int64_t p95_ns) {
  return pad_left(human_duration(total_ns), kDurationWidth) +
         pad_left(human_duration(average_ns), kDurationWidth) +
         pad_left(human_duration(median_ns), kDurationWidth) +
         pad_left(human_duration(p95_ns), kDurationWidth);
}

std::string duration_headings() {
  return pad_left("Total", kDurationWidth) + pad_left("Average", kDurationWidth) +
         pad_left("Med", kDurationWidth) + pad_left("p95", kDurationWidth);
}

void write_table(const char* title, const char* count_word, const StatsTable& table,
                 TextSink& sink) {
  int64_t untimed = 0;
  for (const NameStats& row : table.rows) untimed += row.calls - row.timed_calls;
  std::string heading = std::string(title) + " (" + std::to_string(table.calls) + " " + count_word +
                        ", " + std::to_string(table.rows.size()) + " names, total " +
                        human_duration(table.total_ns);
  if (untimed > 0) heading += ", " + std::to_string(untimed) + " without device times";
  sink.write(heading + ")\n");
  if (table.rows.empty()) {
    sink.write("  (none)\n");
    return;
  }
  size_t name_width = 4;
  std::vector<std::string> names;
  names.reserve(table.rows.size());
  for (const NameStats& row : table.rows) {
    names.push_back(terminal_name(row.name, kSummaryTableNameWidth));
    name_width = std::max(name_width, display_columns(names.back()));
  }
  sink.write("  " + pad_right("Name", name_width) + pad_left("Calls", kCallsWidth) +
             duration_headings() + pad_left("Percent", kPercentWidth) + "\n");
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const NameStats& row = table.rows[i];
    sink.write("  " + pad_right(names[i], name_width) +
               pad_left(std::to_string(row.calls), kCallsWidth) +
               duration_columns(row.total_ns, row.average_ns(), row.median_ns, row.p95_ns) +
               pad_left(percent_text(row.total_ns, table.total_ns) + "%", kPercentWidth) + "\n");
  }
}

// Copies and memsets per direction, by device time as the copy statistics CSV: bytes and bandwidth
// beside the durations (direction names are short, so the line has room for them).
void write_copy_table(std::vector<CopyStats> rows, TextSink& sink) {
  std::sort(rows.begin(), rows.end(), [](const CopyStats& a, const CopyStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.direction < b.direction;
  });
  int64_t calls = 0, total_ns = 0, untimed = 0;
  for (const CopyStats& s : rows) {
    calls += s.calls;
    total_ns += s.total_ns;
    untimed += s.calls - s.timed_calls;
  }
  std::string heading = "Copies and memsets (" + std::to_string(calls) + " operations, " +
                        std::to_string(rows.size()) + " directions, total " +
                        human_duration(total_ns);
  if (untimed > 0) heading += ", " + std::to_string(untimed) + " without device times";
  sink.write(heading + ")\n");
  if (rows.empty()) {
    sink.write("  (none)\n");
    return;
  }
  size_t name_width = 9;  // "Direction"
  std::vector<std::string> names;
  for (const CopyStats& s : rows) {
    names.push_back(terminal_name(s.direction, kSummaryTableNameWidth));
    name_width = std::max(name_width, display_columns(names.back()));
  }
  constexpr size_t kBytesWidth = 12, kBandwidthWidth = 9;
  sink.write("  " + pad_right("Direction", name_width) + pad_left("Calls", kCallsWidth) +
             pad_left("Bytes", kBytesWidth) + duration_headings() +
             pad_left("GB/s", kBandwidthWidth) + "\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const CopyStats& s = rows[i];
    const int64_t average_ns = s.timed_calls > 0 ? rounded_div(s.total_ns, s.timed_calls) : 0;
    std::string bandwidth = bandwidth_text(s.timed_bytes, s.total_ns);
    sink.write("  " + pad_right(names[i], name_width) +
               pad_left(std::to_string(s.calls), kCallsWidth) +
               pad_left(human_bytes(s.bytes), kBytesWidth) +
               duration_columns(s.total_ns, average_ns, s.median_ns, s.p95_ns) +
               pad_left(bandwidth.empty() ? "-" : bandwidth, kBandwidthWidth) + "\n");
  }
}

// The busiest streams: each one's device work, its busy time and that time's share of the run
// and of the stream's own span (first begin to last end), as the HTML report's stream table.
void write_stream_table(std::vector<SummaryStream> rows, const std::string& label, TextSink& sink) {
  std::sort(rows.begin(), rows.end(), [](const SummaryStream& a, const SummaryStream& b) {
    if (a.busy.busy_ns != b.busy.busy_ns) return a.busy.busy_ns > b.busy.busy_ns;
    return std::tie(a.process, a.busy.device, a.busy.stream_index) <
           std::tie(b.process, b.busy.device, b.busy.stream_index);
  });
  int64_t busy_ns = 0;
  for (const SummaryStream& s : rows) busy_ns += s.busy.busy_ns;
  sink.write(label + "s (" + std::to_string(rows.size()) + " with device work, busy " +
             human_duration(busy_ns) + " in all)\n");
  if (rows.empty()) {
    sink.write("  (none)\n");
    return;
  }
  constexpr size_t kProcessWidth = 12, kNumberWidth = 8, kShareWidth = 9;
  const bool several = !rows.front().process.empty();
  sink.write("  " + (several ? pad_right("Process", kProcessWidth) : "") +
             pad_left("Device", kNumberWidth) +
             pad_left(label, std::max(kNumberWidth, display_columns(label) + 2)) +
             pad_left("Ops", kNumberWidth) + pad_left("Kernels", kNumberWidth) +
             pad_left("Busy", kDurationWidth) + pad_left("% of run", kShareWidth) +
             pad_left("Span", kDurationWidth) + pad_left("% busy", kShareWidth) + "\n");
  const size_t shown = std::min(rows.size(), kSummaryStreams);
  for (size_t i = 0; i < shown; ++i) {
    const SummaryStream& s = rows[i];
    const int64_t span_ns = s.busy.last_ns - s.busy.first_ns;
    sink.write("  " + (several ? pad_right(s.process, kProcessWidth) : "") +
               pad_left(std::to_string(s.busy.device), kNumberWidth) +
               pad_left(std::to_string(s.busy.stream_index),
                        std::max(kNumberWidth, display_columns(label) + 2)) +
               pad_left(std::to_string(s.busy.operations), kNumberWidth) +
               pad_left(std::to_string(s.busy.kernels), kNumberWidth) +
               pad_left(human_duration(s.busy.busy_ns), kDurationWidth) +
               pad_left(percent_text(s.busy.busy_ns, s.run_ns) + "%", kShareWidth) +
               pad_left(human_duration(span_ns), kDurationWidth) +
               pad_left(percent_text(s.busy.busy_ns, span_ns) + "%", kShareWidth) + "\n");
  }
  if (rows.size() > shown)
    sink.write("  ... and " + std::to_string(rows.size() - shown) +
               " more (the HTML report lists them all)\n");
}

}  // namespace

std::string human_bytes(int64_t bytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024 && bytes > -1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while ((value >= 1024 || value <= -1024) && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
  return text;
}

std::string terminal_name(std::string_view name, size_t width) {
  return fit_columns(terminal_escaped(name), width);
}

void write_summary(const SummaryInput& input, TextSink& sink, bool with_files) {
  for (const SummaryApiTable& api : input.api) {
    write_table(api.title.c_str(), "calls", api.table, sink);
    sink.write("\n");
  }
  write_table("Kernels", "launches", input.kernels, sink);
  sink.write("\n");
  write_copy_table(input.copies, sink);
  sink.write("\n");
  write_stream_table(input.streams, input.stream_label, sink);
  if (!input.memory.empty()) {
    sink.write("\nMemory in use (peak, still allocated at exit)\n");
    for (const MemorySeries& m : input.memory) {
      std::string what = m.kind == MemoryKind::kHost
                             ? std::string("Host, pinned")
                             : input.device_label + " " + std::to_string(m.device) + ", " +
                                   memory_kind_name(m.kind);
      sink.write("  " + pad_right(what, 24) + pad_left(human_bytes(m.peak_bytes), 12) +
                 pad_left(human_bytes(m.final_bytes), 12) + "   " + std::to_string(m.allocations) +
                 " allocations, " + std::to_string(m.frees) + " frees\n");
    }
  }
  if (!input.drops.empty()) {
    int64_t total = 0;
    for (const auto& [cause, count] : input.drops) total += count;
    sink.write("\nWarning: " + std::to_string(total) +
               " events were dropped; the report is incomplete:\n");
    for (const auto& [cause, count] : input.drops)
      sink.write("  " + terminal_name(cause, kSummaryNameWidth) + ": " + std::to_string(count) +
                 "\n");
  }
  if (!with_files) return;
  sink.write("\nFiles written:\n");
  for (const std::string& file : input.files_written)
    sink.write("  " + terminal_name(file, 4096) + "\n");
  for (const std::string& note : input.notes)
    sink.write("Note: " + terminal_name(note, 4096) + "\n");
  write_findings_summary(input.findings, kSummaryFindings, sink);
}

}  // namespace prof::report
