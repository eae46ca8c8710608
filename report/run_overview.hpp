// The run at a glance, for the HTML report: each process's description (from its meta) and each
// stream's busy time (added up in the report's one pass over the events). Small: a row per process
// and per stream.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"

namespace prof::report {

struct ProcessOverview {
  SourceProcess process;
  std::string runtimes;      // meta runtime: "hip", "hip,musa"
  std::string prof_version;  // meta prof_version
  std::optional<int64_t> wall_start_unix_ns;
  // CLOCK_MONOTONIC. start_ns: the process's start (meta start_ns). end_ns: the program's end, the
  // latest end of anything it recorded (a call's return, a kernel's or copy's device end), not
  // when the db was completed (meta end_ns, db_completed_ns), which adds prof's own work after the
  // program exited. start_ns <= end_ns <= db_completed_ns.
  int64_t start_ns = 0, end_ns = 0, db_completed_ns = 0;
  bool incomplete = false;  // meta incomplete: cut short at the end of the run
  int64_t duration_ns() const { return end_ns - start_ns; }
  int64_t db_build_ns() const {
    return db_completed_ns - end_ns;
  }  // program's end to the db complete
};

// The selected process's overview. When meta lacks start or end (an older db), its API calls'
// and device work's first begin and last end stand in.
ProcessOverview read_process_overview(Database& db, const SourceProcess& process);

// One stream's device work: kernels, copies and memsets with device times.
struct StreamBusy {
  int64_t process_index = 0;  // into the report's processes
  int64_t device = 0;
  int64_t stream_index = 0;
  int64_t operations = 0, kernels = 0;
  int64_t busy_ns = 0;                // the sum of their durations (a stream runs one at a time)
  int64_t first_ns = 0, last_ns = 0;  // first begin, last end
};

// The selected process's streams that ran timed work, by device then stream.
std::vector<StreamBusy> query_stream_busy(Database& db, const RowFilter& filter,
                                          int64_t process_index);

// query_stream_busy as a consumer of one pass over the events (report/event_pass.hpp).
class StreamBusyCollector final : public EventConsumer {
 public:
  void kernel(const KernelRow& r) override {
    add(r.device, r.stream_index, r.device_begin_ns, r.device_end_ns, 1);
  }
  void copy(const CopyRow& r) override {
    add(r.device, r.stream_index, r.device_begin_ns, r.device_end_ns, 0);
  }
  // The streams so far, by device then stream; starts again empty.
  std::vector<StreamBusy> take(int64_t process_index);

 private:
  void add(int64_t device, int64_t stream, const std::optional<int64_t>& begin_ns,
           const std::optional<int64_t>& end_ns, int64_t kernel);
  std::map<std::pair<int64_t, int64_t>, StreamBusy> streams_;
};

}  // namespace prof::report
