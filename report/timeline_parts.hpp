// How a timeline is split by time so every part opens in a trace viewer (docs/formats.md, "Parts").
// A browser tab parses a whole JSON trace in memory: ui.perfetto.dev and catapult's viewer open
// traces of a few hundred MB at most. prof keeps each part under an event and a byte budget.
#pragma once
#include <climits>
#include <cstdint>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"

namespace prof::report {

// The default budget of one timeline file (--json-max-events changes the event count).
inline constexpr int64_t kDefaultPartEvents = 500'000;
inline constexpr int64_t kPartMaxBytes = 128ll << 20;

// Plans the parts: a consumer of the report's pass over event times (report/event_pass.hpp
// scan_event_times, per process after begin_process) that histograms every event time with its
// weight, then plan() adds memory samples and marks and returns the start times of the parts
// (ascending, the first INT64_MIN): {INT64_MIN} when the whole timeline fits one part. A part holds
// the events that begin in [start_i, start_i+1): API calls by begin, kernels and copies (with their
// arrows) by device begin, counter samples by time. Each part's events and estimated bytes stay
// within the budget unless one nanosecond alone exceeds it. Memory is a fixed-size histogram whose
// bins widen as the time span grows (on either side: a ring of bins); a bin that alone exceeds the
// budget is planned again by a planner of its own time range, at the cost of one more pass over
// event times.
class PartPlanner final : public EventConsumer {
 public:
  // Events outside [lo, hi) are left out.
  PartPlanner(int64_t max_events, int64_t max_bytes, int64_t lo = INT64_MIN,
              int64_t hi = INT64_MAX);
  void begin_process(Database& db);  // the selected process's name lengths
  void api(const ApiRow& r) override;
  void kernel(const KernelRow& r) override;
  void copy(const CopyRow& r) override;
  // How a finer planner reads the selected process's event times: scan_event_times, or the same
  // through the report's kernel filters (report/kernel_filter.hpp), so the plan counts the events
  // that are written.
  using TimesScan =
      std::function<void(Database&, const RowFilter&, const std::vector<EventConsumer*>&)>;
  std::vector<int64_t> plan(Database& db, const RowFilter& filter,
                            const std::vector<SourceProcess>& processes,
                            const TimesScan& scan = {});
  // Adds the events another planner (same budget) histogrammed: exact, since bins of either width
  // nest in the wider ones.
  void absorb(const PartPlanner& other);

  struct Weight {
    int64_t events = 0;
    int64_t bytes = 0;
    void add(const Weight& w) {
      events += w.events;
      bytes += w.bytes;
    }
  };
  static constexpr int64_t kBins = 4096;

 private:
  class Greedy;
  void add(int64_t at_ns, const Weight& w);
  void add_weight(int64_t at_ns, const Weight& w);  // add() without counting a row
  void widen();
  static size_t slot(int64_t bin);
  // The selected process's memory samples and marks (their counter tracks into `tracks`).
  void add_samples(Database& db, std::set<std::tuple<int64_t, int, int64_t>>* tracks,
                   int64_t process_id);
  void fill(Database& db, const RowFilter& filter, const std::vector<SourceProcess>& processes,
            const TimesScan& scan, Greedy& greedy) const;

  int64_t max_events_, max_bytes_, lo_, hi_;
  std::unordered_map<int64_t, int64_t> api_name_bytes_, kernel_name_bytes_;
  // Bin b holds the events in [b * width_, (b + 1) * width_), in bins_[slot(b)]; the bins in use,
  // low_ to high_, are fewer than kBins, so no two share a slot.
  std::vector<Weight> bins_;
  int64_t low_ = 0, high_ = 0, width_ = 1, rows_ = 0;
  bool empty_ = true;
};

}  // namespace prof::report
