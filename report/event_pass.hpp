// One pass over a process's events: api_calls, kernels and copies, each read once in its own
// storage order (correlation id: a sequential scan, no sort, no lookup per row), merged by
// correlation id so that each kernel and copy knows its call's thread. Every report that needs no
// other order (the trace CSVs, the per-name statistics, the run summary, copy statistics, stream
// busy times, the timeline's extents) is a consumer fed by this one pass instead of running its
// own queries. Consumers keep at most a record per name, stream or direction: memory does not
// grow with the trace.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/report_db.hpp"

namespace prof::report {

class KernelNames;  // report/kernel_names.hpp

struct ApiRow {
  int64_t correlation_id = 0, api_id = 0, thread_id = 0, begin_ns = 0, end_ns = 0, result = 0,
          device = 0, bytes = 0, aux = 0;
  std::optional<int64_t> sequence, stream_index;
  // Named arguments (api_args) as "name:value,..." in name order; read only when the scan asks
  // (ScanOptions::api_args), else empty.
  bool has_args = false;
  std::string args;
};

// The call that enqueued a kernel or copy, when that call is in the db.
struct CallOf {
  int64_t thread_id = 0, begin_ns = 0, end_ns = 0, api_id = 0;
};

struct KernelRow {
  int64_t correlation_id = 0, function_address = 0, device = 0, stream_index = 0,
          shared_mem_bytes = 0;
  int64_t grid[3] = {}, block[3] = {};
  std::optional<int64_t> name_id, device_begin_ns, device_end_ns;
  std::optional<int64_t>
      call_thread_id;  // the enqueueing call's thread, when that call is in the db
  CallOf call;         // that call (valid when call_thread_id is set)
  // The process's readable names, when a pipe handed the row over (report/event_pipe.hpp): look
  // name_id up there, never in the db (the consumer may run on a thread of its own).
  const KernelNames* names = nullptr;
};

struct CopyRow {
  int64_t correlation_id = 0, device = 0, stream_index = 0, direction = 0, bytes = 0;
  std::optional<int64_t> device_begin_ns, device_end_ns;
  std::optional<int64_t> call_thread_id;
  CallOf call;
};

class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  virtual void api(const ApiRow&) {}
  virtual void kernel(const KernelRow&) {}
  virtual void copy(const CopyRow&) {}
};

struct ScanOptions {
  bool api_args =
      false;  // fill ApiRow::args from api_args (a merge by correlation id, no lookup per row)
  // A second connection to the same file, with the same process selected: kernels and copies are
  // then read from it on a thread of their own (second_connection(), report/report_db.hpp).
  Database* second_connection = nullptr;
};
// Feeds the selected process's rows that `filter` covers to every consumer, in correlation id
// order: before each call, the kernels and copies up to its id (a kernel before a copy of the same
// id), each table read in its own order (no sort).
void scan_events(Database& db, const RowFilter& filter,
                 const std::vector<EventConsumer*>& consumers, ScanOptions options = {});

// The same rows with only the fields a timeline plans with, at a third of the cost (SQLite
// aggregate functions: no statement steps back to the caller per row): ApiRow correlation_id,
// api_id, thread_id, begin_ns, end_ns; KernelRow correlation_id, name_id, device, stream_index,
// device_begin_ns, device_end_ns; CopyRow correlation_id, device, stream_index, direction,
// device_begin_ns, device_end_ns. Other fields are 0 or empty. Tables are read one after the
// other, rows in no promised order; a kernel or copy is covered when its correlation id is
// in the range (RowFilter::activity_condition), whether or not its call was recorded.
// `tables` reads only the calls or only the kernels and copies (two connections, two threads).
enum class TimeTables { kAll, kCalls, kDeviceWork };
void scan_event_times(Database& db, const RowFilter& filter,
                      const std::vector<EventConsumer*>& consumers,
                      TimeTables tables = TimeTables::kAll);

// Count, first and last begin of the covered events of one process: API calls by begin_ns, kernels
// and copies by device_begin_ns (those without one are not counted). A timeline's origin and its
// split plan start from these.
struct EventExtents final : EventConsumer {
  struct Span {
    int64_t count = 0, min_ns = 0, max_ns = 0;
    void add(int64_t ns) {
      min_ns = count == 0 ? ns : std::min(min_ns, ns);
      max_ns = count == 0 ? ns : std::max(max_ns, ns);
      ++count;
    }
    void absorb(const Span& other) {
      if (other.count == 0) return;
      min_ns = count == 0 ? other.min_ns : std::min(min_ns, other.min_ns);
      max_ns = count == 0 ? other.max_ns : std::max(max_ns, other.max_ns);
      count += other.count;
    }
  };
  Span api_calls, kernels, copies;
  int64_t rows = 0;  // every covered row, timed or not
  void api(const ApiRow& r) override {
    ++rows;
    api_calls.add(r.begin_ns);
  }
  void kernel(const KernelRow& r) override {
    ++rows;
    if (r.device_begin_ns) kernels.add(*r.device_begin_ns);
  }
  void copy(const CopyRow& r) override {
    ++rows;
    if (r.device_begin_ns) copies.add(*r.device_begin_ns);
  }
  // Adds what another consumer saw of other rows.
  void absorb(const EventExtents& other) {
    api_calls.absorb(other.api_calls);
    kernels.absorb(other.kernels);
    copies.absorb(other.copies);
    rows += other.rows;
  }
};

}  // namespace prof::report
