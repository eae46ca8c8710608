// The report over an already open (and checked) database: shared by write_reports (one db) and
// merge_reports (a merged db it has just built).
#pragma once
#include <cstdio>
#include <functional>
#include <string>

#include "db/sqlite_db.hpp"
#include "report/csv_columns.hpp"
#include "report/report.hpp"

namespace prof::report {

// File signatures: an existing file is replaced only when it starts with its kind's (it is one
// of prof's own earlier outputs).
inline constexpr std::string_view kCsvSignature = leading_columns(kStatsColumns, 3);
inline constexpr std::string_view kJsonSignature = "{\"traceEvents\":[";
// A pftrace's first packet, always the same (PftraceWriter::begin): trusted_packet_sequence_id 1,
// sequence_flags SEQ_INCREMENTAL_STATE_CLEARED.
inline constexpr std::string_view kPftraceSignature =
    std::string_view("\x0a\x04\x50\x01\x68\x01", 6);
inline constexpr std::string_view kApiTraceSignature = leading_columns(kApiTraceColumns, 3);
inline constexpr std::string_view kKernelTraceSignature = leading_columns(kKernelTraceColumns, 8);
inline constexpr std::string_view kCopyTraceSignature = leading_columns(kCopyTraceColumns, 8);
inline constexpr std::string_view kCopyStatsSignature = leading_columns(kCopyStatsColumns, 3);
inline constexpr std::string_view kMemoryStatsSignature = leading_columns(kMemoryStatsColumns, 3);
inline constexpr std::string_view kKernelByRangeSignature =
    leading_columns(kKernelByRangeColumns, 3);

// `commit_first` runs after every report is complete and before they are renamed into place; it
// returns a path to list first in files_written (the merged db), or "" for none.
ReportResult write_reports_from(Database& db, const ReportOptions& opt, std::FILE* summary_out,
                                const std::function<std::string()>& commit_first = {});

std::string join_path(const std::string& dir, const std::string& name);

}  // namespace prof::report
