// What the findings rules read of one process (report/findings.hpp): its calls in call order and
// its timed device work in time order, loaded once per process, and the helpers the rules share.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/findings.hpp"
#include "report/host_memory.hpp"

namespace prof::report::findings {

struct CallRow {
  int64_t sequence = 0, correlation_id = 0, thread_id = 0;
  int64_t begin_ns = 0, end_ns = 0, result = 0, bytes = 0, aux = 0;
  int64_t stream = -1;  // stream_index; -1 for a call without one
  int64_t device = 0;
  uint16_t api_id = 0;
  int64_t duration_ns() const { return end_ns - begin_ns; }
};

// A kernel or copy (memsets included) with both device times.
struct WorkRow {
  int64_t correlation_id = 0, begin_ns = 0, end_ns = 0, bytes = 0;
  int64_t device = 0, stream = 0;
  int direction = -1;  // copy_directions.direction; -1 for a kernel
  bool is_kernel() const { return direction < 0; }
  int64_t duration_ns() const { return end_ns - begin_ns; }
};

struct ProcessData {
  ProcessSpan span;
  std::vector<CallRow> calls;                      // by sequence
  std::vector<WorkRow> work;                       // by device begin, then end
  std::unordered_map<int64_t, size_t> call_index;  // correlation_id -> index into calls
  std::map<int64_t, std::string> api_names;        // the db's api_names
  std::vector<HostCopy> host_copies;  // host<->device copy calls with their host memory's kind

  std::string_view name(uint16_t api_id) const;
  const CallRow* call_of(int64_t correlation_id) const;
};

// Reads the selected process of `db` (report/merged_db.hpp select_process).
ProcessData load_process(Database& db, const ProcessSpan& span);

// A time interval [begin_ns, end_ns).
struct Interval {
  int64_t begin_ns = 0, end_ns = 0;
};
// The union of `intervals` (sorted by begin, or not), as sorted disjoint intervals.
std::vector<Interval> union_of(std::vector<Interval> intervals);
int64_t total_ns(const std::vector<Interval>& intervals);

// Groups calls into sites by API name; sites() orders them by time, then calls. A site names the
// calls that weigh most in it (their time at stake), so the worst instances are the ones shown.
class SiteBuilder {
 public:
  void add(const ProcessData& process, const CallRow& call, int64_t time_ns);
  std::vector<FindingSite> sites(size_t max_sites = 5) const;

 private:
  struct Group {
    FindingSite site;
    int64_t time_ns = 0;
    std::vector<std::pair<int64_t, int64_t>> heaviest;  // (time, sequence), heaviest first
  };
  std::map<std::string, Group, std::less<>> groups_;
};

// "12.346 ms" and friends (report/time_format.hpp), for evidence text.
std::string duration_text(int64_t ns);
std::string bytes_text(int64_t bytes);
std::string count_text(int64_t count, const char* one, const char* many);

}  // namespace prof::report::findings
