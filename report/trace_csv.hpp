// Per-event CSVs, one row per dispatch, copy or call (rocprofv3's kernel_trace.csv,
// memory_copy_trace.csv and api_trace.csv; nsys's cuda_gpu_trace), and the copy statistics per
// direction (rocprof's copy_stats.csv). Streamed from ordered queries: memory does not grow with
// the trace. Columns are named like rocprofv3's where the meaning is the same (docs/formats.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "collector/sqlite_db.hpp"
#include "report/report_db.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

// Headers first (once per file), then the rows of the selected process (call once per process of
// a merged db; `pid` fills Process_Id).
void write_kernel_trace_header(TextSink& out);
void write_kernel_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out);
void write_copy_trace_header(TextSink& out);
void write_copy_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out);
void write_api_trace_header(TextSink& out);
void write_api_trace(Database& db, const RowFilter& filter, int64_t pid, TextSink& out);

// Per copy direction (Memset included): calls, bytes, device time, bandwidth.
struct CopyStats {
  std::string direction;
  int64_t calls = 0, timed_calls = 0, bytes = 0, timed_bytes = 0, total_ns = 0, min_ns = 0, max_ns = 0;
};
std::vector<CopyStats> query_copy_stats(Database& db, const RowFilter& filter);
std::vector<CopyStats> merge_copy_stats(std::vector<std::vector<CopyStats>> parts);
void write_copy_stats(const std::vector<CopyStats>& stats, TextSink& out);

// GB/s (= bytes per ns) with three decimals; "" when there is no time.
std::string bandwidth_text(int64_t bytes, int64_t ns);

}  // namespace prof::report
