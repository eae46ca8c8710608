// The report over an already open (and checked) database: shared by write_reports (one db) and
// merge_reports (a merged db it has just built).
#pragma once
#include <cstdio>
#include <functional>
#include <string>

#include "db/sqlite_db.hpp"
#include "report/report.hpp"

namespace prof::report {

// File signatures: an existing file is replaced only when it starts with its kind's (it is one
// of prof's own earlier outputs).
inline constexpr std::string_view kCsvSignature = "Name,Calls,TotalDurationNs,";
inline constexpr std::string_view kJsonSignature = "{\"traceEvents\":[";
// A pftrace's first packet, always the same (PftraceWriter::begin): trusted_packet_sequence_id 1,
// sequence_flags SEQ_INCREMENTAL_STATE_CLEARED.
inline constexpr std::string_view kPftraceSignature = std::string_view("\x0a\x04\x50\x01\x68\x01", 6);
inline constexpr std::string_view kApiTraceSignature = "Domain,Function,Process_Id,";
inline constexpr std::string_view kKernelTraceSignature = "Kind,Runtime,Process_Id,Thread_Id,Device,Stream_Id,Correlation_Id,Kernel_Name,";
inline constexpr std::string_view kCopyTraceSignature = "Kind,Runtime,Process_Id,Thread_Id,Device,Stream_Id,Correlation_Id,Direction,";
inline constexpr std::string_view kCopyStatsSignature = "Direction,Calls,TotalBytes,";
inline constexpr std::string_view kMemoryStatsSignature = "Runtime,Name,Role,";
inline constexpr std::string_view kKernelByRangeSignature = "Range,Name,Calls,";

// `commit_first` runs after every report is complete and before they are renamed into place; it
// returns a path to list first in files_written (the merged db), or "" for none.
ReportResult write_reports_from(Database& db, const ReportOptions& opt, std::FILE* summary_out,
                                const std::function<std::string()>& commit_first = {});

std::string join_path(const std::string& dir, const std::string& name);

}  // namespace prof::report
