// The terminal summary: an API table per runtime, the kernel table, the copy table, the busiest
// streams, dropped events
// (never silent) and the files written. Names are made safe for a terminal and long ones are
// shortened here only.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/findings.hpp"
#include "report/memory.hpp"
#include "report/run_overview.hpp"
#include "report/stats.hpp"
#include "report/text_sink.hpp"
#include "report/trace_csv.hpp"

namespace prof::report {

struct SummaryApiTable {
  std::string title;  // the runtime's api_title: "HIP API"
  const StatsTable& table;
};

// One stream that ran device work, and the run it is a share of.
struct SummaryStream {
  std::string process;  // "pid 4242" when the report covers several processes, else ""
  StreamBusy busy;
  int64_t run_ns = 0;  // the process's run (ProcessOverview::duration_ns)
};

struct SummaryInput {
  std::vector<SummaryApiTable> api;  // one per runtime, by runtime id
  const StatsTable& kernels;
  std::vector<std::pair<std::string, int64_t>> drops;  // cause, count
  std::vector<std::string> files_written;
  std::vector<MemorySeries> memory = {};    // peak and at-exit bytes per device and kind
  std::string device_label = "Device";      // the runtimes' word for a device ("Device", "MLU/NPU")
  std::vector<std::string> notes = {};      // after the files: what was written differently and why
  std::vector<CopyStats> copies = {};       // per direction (Memset too), any order
  std::vector<SummaryStream> streams = {};  // any order; the busiest kSummaryStreams are shown
  std::string stream_label = "Stream";      // the runtimes' word ("Stream", "Queue/Stream")
  FindingsView findings = {};               // the summary ends with the top kSummaryFindings
};

inline constexpr size_t kSummaryFindings = 5;

inline constexpr size_t kSummaryStreams = 10;  // the HTML report lists them all

inline constexpr size_t kSummaryNameWidth = 60;  // display columns; longer names end in "..."
// A table's line is at most this many display columns (a terminal of 100): the API and kernel
// tables cut names to what their numbers leave (kSummaryTableNameWidth); the CSVs hold them whole.
inline constexpr size_t kSummaryLineWidth = 100;
inline constexpr size_t kSummaryTableNameWidth = 37;

// with_files: the "Files written" list and notes (a combined summary of several processes has
// none).
void write_summary(const SummaryInput& input, TextSink& sink, bool with_files = true);

// Bytes for people: "512 B", "1.50 KiB", "12.00 MiB", "3.25 GiB" (two decimals, binary units).
std::string human_bytes(int64_t bytes);

// A name as the terminal table shows it: escaped for a terminal (terminal_escaped: stray bytes,
// control, bidi and separator characters as \xNN or \uNNNN), at most `width` display columns
// (the last three "..." when cut).
std::string terminal_name(std::string_view name, size_t width);

}  // namespace prof::report
