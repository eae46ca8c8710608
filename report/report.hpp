// prof's reports: everything it writes from a database. Reads only the db (collector/schema.hpp)
// and writes the files described in docs/formats.md, plus the terminal summary.
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_error.hpp"

namespace prof::report {

struct ReportOptions {
  std::string output_dir;  // where files go; must exist
  std::string base_name;   // e.g. "result_4242" (the cli computes it; -o NAME overrides)
  bool summary_to_stdout = true;
  bool group_stream = false;  // also <base>_stream.json
  // Only API calls with sequence in [first, last] and the kernels/copies they enqueued.
  std::optional<std::pair<int64_t, int64_t>> index_range;
};

struct ReportResult {
  std::vector<std::string> files_written;  // full paths, in the order written
};

// Writes <base>.hiptrace.csv, <base>.kernel.csv, <base>_copy.json (and <base>_stream.json) into
// output_dir, then the summary to `summary_out` when summary_to_stdout (and summary_out) is set.
// All files appear together or none does: each is written to a temp file and renamed at the end.
// Throws ReportError (one line naming the file and what is wrong) on a bad database or output.
ReportResult write_reports(const std::string& db_path, const ReportOptions& opt, std::FILE* summary_out);

}  // namespace prof::report
