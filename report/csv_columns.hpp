// The column lists of prof's CSV files, each spelled once: the writers write them as the header
// line, and report_files.hpp takes each file's signature (what an earlier file of its kind starts
// with) from its first columns. Names are plain words: they need no CSV quoting. docs/formats.md
// describes the columns.
#pragma once
#include <cstddef>
#include <string_view>

namespace prof::report {

// <base>.<api_csv_stem>.csv and <base>.kernel.csv (and <base>.range_stats.csv): hipprof's columns
// first, in its order; MedianNs and P95Ns after them, so scripts keyed on hipprof's columns (by
// name or by position) keep working.
inline constexpr std::string_view kStatsColumns =
    "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDevNs,MedianNs,P95Ns";
// <base>.kernel_by_range.csv: the kernel statistics per innermost enclosing range.
inline constexpr std::string_view kKernelByRangeColumns =
    "Range,Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDevNs,MedianNs,P95Ns";
// <base>.api_trace.csv, kernel_trace.csv and copy_trace.csv: a row per call, dispatch or copy,
// named like rocprofv3's columns where the meaning is the same.
inline constexpr std::string_view kApiTraceColumns =
    "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Sequence,Start_Timestamp,End_Timestamp,"
    "Duration_Ns,Result,Device,Stream_Id,Bytes";
inline constexpr std::string_view kKernelTraceColumns =
    "Kind,Runtime,Process_Id,Thread_Id,Device,Stream_Id,Correlation_Id,Kernel_Name,Start_Timestamp,"
    "End_Timestamp,Duration_Ns,Grid_Dim_X,Grid_Dim_Y,Grid_Dim_Z,Workgroup_Size_X,Workgroup_Size_Y,"
    "Workgroup_Size_Z,Shared_Memory_Bytes";
inline constexpr std::string_view kCopyTraceColumns =
    "Kind,Runtime,Process_Id,Thread_Id,Device,Stream_Id,Correlation_Id,Direction,Size,"
    "Start_Timestamp,End_Timestamp,Duration_Ns,Bandwidth_GBps";
// <base>.copy_stats.csv: MedianNs and P95Ns come last, so scripts keyed on the earlier columns
// keep working.
inline constexpr std::string_view kCopyStatsColumns =
    "Direction,Calls,TotalBytes,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,BandwidthGBps,"
    "MedianNs,P95Ns";
// <base>.memory_stats.csv: per allocation or release function.
inline constexpr std::string_view kMemoryStatsColumns =
    "Runtime,Name,Role,Calls,FailedCalls,TotalBytes,LargestBytes,AverageBytes";

// The first `n` columns of `columns` and the comma after them.
constexpr std::string_view leading_columns(std::string_view columns, int n) {
  size_t end = 0;
  for (int i = 0; i < n; ++i) end = columns.find(',', end) + 1;
  return columns.substr(0, end);
}

}  // namespace prof::report
