// The cli side of the report commands (--db, --db-merge): exit codes for report errors, the
// terminal progress line, warnings.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "report/merge.hpp"
#include "report/report.hpp"

namespace prof::cli {

// kExitNoInput for a missing input, kExitCannotWrite for an output, kExitBadInput otherwise.
int report_exit_code(const report::ReportError& error);

// A progress line on stderr when stderr is a terminal (never in CI logs or pipes); empty otherwise.
std::function<void(std::string_view, int64_t, int64_t)> terminal_progress();

// Prints the report's warnings, one "prof: warning: ..." line each.
void print_warnings(const report::ReportResult& result);

// prof --db-merge DIR: `opt` already names the output; returns prof's exit status.
int merge_databases(const report::MergeOptions& merge, const report::ReportOptions& opt,
                    std::FILE* summary_out);

}  // namespace prof::cli
