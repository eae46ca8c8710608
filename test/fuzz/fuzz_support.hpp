// Shared by the libFuzzer targets (scripts/fuzz.sh builds and runs them; not part of CI): a
// private scratch directory per process, and running the whole report on one db file.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "report/report.hpp"
#include "report/report_error.hpp"

namespace prof::fuzz {

inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string templ = (std::filesystem::temp_directory_path() / "prof-fuzz-XXXXXX").string();
    if (!mkdtemp(templ.data())) std::abort();
    return templ;
  }();
  return dir;
}

// Every writer runs; a ReportError (a refused input) is a correct answer, anything else is not.
inline void run_report(const std::string& db_path, bool group_stream) {
  report::ReportOptions options;
  options.output_dir = scratch_dir() + "/out";
  std::filesystem::create_directories(options.output_dir);
  options.base_name = "fuzz";
  options.summary_to_stdout = true;
  options.group_stream = group_stream;
  static std::FILE* null_out = std::fopen("/dev/null", "w");
  try {
    report::write_reports(db_path, options, null_out);
  } catch (const report::ReportError&) {
  }
}

}  // namespace prof::fuzz
