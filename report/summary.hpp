// The terminal summary: an API table per runtime, the kernel table, dropped events (never silent) and
// the files written. Names are made safe for a terminal and long ones are shortened here only.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/stats.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

struct SummaryApiTable {
  std::string title;  // the runtime's api_title: "HIP API"
  const StatsTable& table;
};

struct SummaryInput {
  std::vector<SummaryApiTable> api;  // one per runtime, by runtime id
  const StatsTable& kernels;
  std::vector<std::pair<std::string, int64_t>> drops;  // cause, count
  std::vector<std::string> files_written;
};

inline constexpr size_t kSummaryNameWidth = 60;  // code points; longer names end in "..."

void write_summary(const SummaryInput& input, TextSink& sink);

// A name as the terminal table shows it: invalid UTF-8 repaired, control characters as '?',
// at most `width` code points (the last three "..." when cut).
std::string terminal_name(std::string_view name, size_t width);

}  // namespace prof::report
