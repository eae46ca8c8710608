#include "report/summary.hpp"

#include <algorithm>
#include <cstdio>

#include "report/display_width.hpp"
#include "report/time_format.hpp"
#include "report/utf8.hpp"

namespace prof::report {

namespace {

void write_table(const char* title, const char* count_word, const StatsTable& table, TextSink& sink) {
  int64_t untimed = 0;
  for (const NameStats& row : table.rows) untimed += row.calls - row.timed_calls;
  std::string heading = std::string(title) + " (" + std::to_string(table.calls) + " " + count_word + ", " +
                        std::to_string(table.rows.size()) + " names, total " + human_duration(table.total_ns);
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
    names.push_back(terminal_name(row.name, kSummaryNameWidth));
    name_width = std::max(name_width, display_columns(names.back()));
  }
  sink.write("  " + pad_right("Name", name_width) + pad_left("Calls", 10) + pad_left("Total", 14) +
             pad_left("Average", 14) + pad_left("Percent", 9) + "\n");
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const NameStats& row = table.rows[i];
    sink.write("  " + pad_right(names[i], name_width) + pad_left(std::to_string(row.calls), 10) +
               pad_left(human_duration(row.total_ns), 14) + pad_left(human_duration(row.average_ns()), 14) +
               pad_left(percent_text(row.total_ns, table.total_ns) + "%", 9) + "\n");
  }
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
  if (!input.memory.empty()) {
    sink.write("\nMemory in use (peak, still allocated at exit)\n");
    for (const MemorySeries& m : input.memory) {
      std::string what = m.kind == MemoryKind::kHost ? std::string("Host, pinned")
                                                     : input.device_label + " " + std::to_string(m.device) + ", " +
                                                           memory_kind_name(m.kind);
      sink.write("  " + pad_right(what, 24) + pad_left(human_bytes(m.peak_bytes), 12) +
                 pad_left(human_bytes(m.final_bytes), 12) + "   " + std::to_string(m.allocations) + " allocations, " +
                 std::to_string(m.frees) + " frees\n");
    }
  }
  if (!input.drops.empty()) {
    int64_t total = 0;
    for (const auto& [cause, count] : input.drops) total += count;
    sink.write("\nWarning: " + std::to_string(total) + " events were dropped; the report is incomplete:\n");
    for (const auto& [cause, count] : input.drops)
      sink.write("  " + terminal_name(cause, kSummaryNameWidth) + ": " + std::to_string(count) + "\n");
  }
  if (!with_files) return;
  sink.write("\nFiles written:\n");
  for (const std::string& file : input.files_written) sink.write("  " + terminal_name(file, 4096) + "\n");
  for (const std::string& note : input.notes) sink.write("Note: " + terminal_name(note, 4096) + "\n");
}

}  // namespace prof::report
