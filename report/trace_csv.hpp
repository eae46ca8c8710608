// Per-event CSVs, one row per dispatch, copy or call (rocprofv3's kernel_trace.csv,
// memory_copy_trace.csv and api_trace.csv; nsys's cuda_gpu_trace), and the copy statistics per
// direction (rocprof's copy_stats.csv). Streamed from one ordered pass over the events: memory does
// not grow with the trace. Columns are named like rocprofv3's where the meaning is the same
// (docs/formats.md).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/kernel_names.hpp"
#include "report/report_db.hpp"
#include "report/text_put.hpp"
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

// The same rows as consumers of one pass over the events (report/event_pass.hpp): each reads its
// names once (small maps keyed by id), then formats a row per event into one reused line.
class ApiTraceWriter final : public EventConsumer {
 public:
  ApiTraceWriter(Database& db, int64_t pid, TextSink& out);
  void api(const ApiRow& r) override;

 private:
  int64_t pid_;
  TextSink& out_;
  std::map<int64_t, std::string> prefix_;  // api_id -> "domain,function,pid,"
  LineBuffer line_;
};

class KernelTraceWriter final : public EventConsumer {
 public:
  KernelTraceWriter(Database& db, int64_t pid, TextSink& out);
  void kernel(const KernelRow& r) override;

 private:
  Database& db_;
  TextSink& out_;
  std::string pid_;
  std::map<int64_t, std::string> runtimes_;  // stream_index -> runtime name, as a CSV field
  // A name as a CSV field is made per row when it needs quoting or repair, remembered for the
  // last id only: a cache of every id would copy every distinct name (issue 42).
  std::unique_ptr<KernelNames> own_names_;  // for rows no pipe handed over (KernelRow::names unset)
  int64_t field_id_ = 0;
  bool has_field_ = false;
  std::string field_, unknown_;
  LineBuffer line_;
};

class CopyTraceWriter final : public EventConsumer {
 public:
  CopyTraceWriter(Database& db, int64_t pid, TextSink& out);
  void copy(const CopyRow& r) override;

 private:
  TextSink& out_;
  std::string pid_;
  std::map<int64_t, std::string> runtimes_;  // stream_index -> runtime name, as a CSV field
  std::map<int64_t, std::pair<std::string, std::string>>
      directions_;  // direction -> name, as a CSV field
  LineBuffer line_;
};

// Per copy direction (Memset included): calls, bytes, device time, bandwidth.
struct CopyStats {
  std::string direction;
  int64_t calls = 0, timed_calls = 0, bytes = 0, timed_bytes = 0, total_ns = 0, min_ns = 0,
          max_ns = 0;
  // Nearest rank, within 0.8%: filled from the run profile (report/stats_quantiles.hpp), 0 until
  // then.
  int64_t median_ns = 0, p95_ns = 0;
};
std::vector<CopyStats> query_copy_stats(Database& db, const RowFilter& filter);
// query_copy_stats as a consumer of the one pass: per direction name, in name order.
class CopyStatsCollector final : public EventConsumer {
 public:
  explicit CopyStatsCollector(Database& db);
  void copy(const CopyRow& r) override;
  std::vector<CopyStats> take();

 private:
  std::map<int64_t, std::string> names_;  // direction -> name
  std::map<std::string, CopyStats> by_name_;
  std::map<int64_t, CopyStats*> by_direction_;
};
std::vector<CopyStats> merge_copy_stats(std::vector<std::vector<CopyStats>> parts);
void write_copy_stats(const std::vector<CopyStats>& stats, TextSink& out);

// GB/s (= bytes per ns) with three decimals; "" when there is no time.
std::string bandwidth_text(int64_t bytes, int64_t ns);

}  // namespace prof::report
