#include "cli/merge.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/exit_codes.hpp"

namespace prof::cli {

int report_exit_code(const report::ReportError& error) {
  if (dynamic_cast<const report::ReportMissingInput*>(&error)) return kExitNoInput;
  if (dynamic_cast<const report::ReportOutputError*>(&error)) return kExitCannotWrite;
  return kExitBadInput;
}

std::function<void(std::string_view, int64_t, int64_t)> terminal_progress() {
  if (!::isatty(STDERR_FILENO)) return {};
  // Redrawn only when the percentage changes, and erased when a stage ends, so the terminal
  // keeps nothing of it.
  auto last = std::make_shared<int>(-1);
  return [last](std::string_view stage, int64_t done, int64_t total) {
    int percent = total > 0 ? static_cast<int>(done * 100 / total) : 100;
    if (done >= total) {
      std::fprintf(stderr, "\r\033[K");
      *last = -1;
    } else if (percent != *last) {
      std::fprintf(stderr, "\rprof: %.*s %3d%%", static_cast<int>(stage.size()), stage.data(),
                   percent);
      *last = percent;
    }
    std::fflush(stderr);
  };
}

void print_warnings(const report::ReportResult& result) {
  for (const std::string& warning : result.warnings)
    std::fprintf(stderr, "prof: warning: %s\n", warning.c_str());
}

int merge_databases(const report::MergeOptions& merge, const report::ReportOptions& opt,
                    std::FILE* summary_out) {
  try {
    const report::ReportResult written = report::merge_reports(merge, opt, summary_out);
    print_warnings(written);
    for (const std::string& failed : written.failed)
      std::fprintf(stderr, "prof: %s\n", failed.c_str());
    if (!written.failed.empty()) return kExitCannotWrite;
  } catch (const report::ReportError& e) {
    std::fprintf(stderr, "prof: %s\n", e.what());
    return report_exit_code(e);
  }
  return 0;
}

}  // namespace prof::cli
