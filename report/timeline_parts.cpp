#include "report/timeline_parts.hpp"

#include <algorithm>
#include <climits>
#include <set>
#include <tuple>
#include <unordered_map>

#include "report/event_pass.hpp"
#include "report/memory.hpp"

namespace prof::report {

namespace {

// What one event costs in a part: events, and bytes as the timeline writer lays them out (an API
// slice with its args is about 190 bytes plus its name, a kernel slice about 230 plus its name,
// a flow's two ends about 220, a counter sample about 110). A kernel or copy counts its slice,
// its arrow's two ends and the API slice the part may have to repeat for the arrow (at most 4).
using Weight = PartPlanner::Weight;

constexpr int64_t kApiBytes = 190, kKernelBytes = 230, kCopyBytes = 230, kFlowBytes = 220,
                  kCounterBytes = 110, kRepeatedBytes = 180, kMarkerBytes = 160;
constexpr int64_t kBins = PartPlanner::kBins;

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Name lengths by id, for the byte estimate.
std::unordered_map<int64_t, int64_t> lengths(Database& db, const char* sql) {
  std::unordered_map<int64_t, int64_t> bytes;
  Statement st = db.prepare(sql);
  while (st.step()) bytes[st.column_int(0)] = st.column_int(1);
  return bytes;
}

}  // namespace

// Fills parts in time order and starts a new one when the next bin would overflow the budget.
class PartPlanner::Greedy {
 public:
  Greedy(int64_t max_events, int64_t max_bytes) : max_events_(max_events), max_bytes_(max_bytes) {}
  bool fits(const Weight& w) const {
    return current_.events + w.events <= max_events_ && current_.bytes + w.bytes <= max_bytes_;
  }
  bool fits_alone(const Weight& w) const {
    return w.events <= max_events_ && w.bytes <= max_bytes_;
  }
  void cut(int64_t at_ns) {
    if (current_.events == 0) return;
    starts_.push_back(at_ns);
    current_ = {};
  }
  void add(const Weight& w) { current_.add(w); }
  std::vector<int64_t> take() { return std::move(starts_); }

 private:
  int64_t max_events_, max_bytes_;
  Weight current_;
  std::vector<int64_t> starts_{INT64_MIN};
};

PartPlanner::PartPlanner(int64_t max_events, int64_t max_bytes, int64_t lo, int64_t hi)
    : max_events_(max_events),
      max_bytes_(max_bytes),
      lo_(lo),
      hi_(hi),
      bins_(static_cast<size_t>(kBins)) {}

void PartPlanner::begin_process(Database& db) {
  api_name_bytes_ = lengths(db, "SELECT api_id, length(name) FROM api_names");
  // Every string, not the kernels' distinct names: that was one more scan of the kernels.
  kernel_name_bytes_ = lengths(db, "SELECT string_id, length(value) FROM strings");
}

void PartPlanner::api(const ApiRow& r) {
  auto name = api_name_bytes_.find(r.api_id);
  add(r.begin_ns, {1, kApiBytes + (name == api_name_bytes_.end() ? 16 : name->second)});
}

void PartPlanner::kernel(const KernelRow& r) {
  if (!r.device_begin_ns || !r.device_end_ns) return;
  int64_t name_bytes = 40;
  if (r.name_id) {
    auto name = kernel_name_bytes_.find(*r.name_id);
    if (name != kernel_name_bytes_.end()) name_bytes = name->second;
  }
  add(*r.device_begin_ns, {4, kKernelBytes + kFlowBytes + kRepeatedBytes + name_bytes});
}

void PartPlanner::copy(const CopyRow& r) {
  if (!r.device_begin_ns || !r.device_end_ns) return;
  add(*r.device_begin_ns, {4, kCopyBytes + kFlowBytes + kRepeatedBytes});
}

void PartPlanner::add(int64_t at_ns, const Weight& w) {
  if (at_ns < lo_ || at_ns >= hi_) return;
  ++rows_;
  add_weight(at_ns, w);
}

void PartPlanner::add_samples(Database& db, std::set<std::tuple<int64_t, int, int64_t>>* tracks,
                              int64_t process_id) {
  read_memory(db, [&](const MemorySeries& series, int64_t at_ns, int64_t) {
    if (tracks) tracks->emplace(process_id, static_cast<int>(series.kind), series.device);
    add(at_ns, {1, kCounterBytes});
  });
  // Marks and ranges (--hiptx-trace): an instant, a slice or an async pair, by begin.
  if (db.table_exists("markers")) {
    Statement markers = db.prepare("SELECT begin_ns, length(message) FROM markers");
    while (markers.step())
      add(markers.column_int(0), {2, 2 * kMarkerBytes + markers.column_int(1)});
  }
}

void PartPlanner::absorb(const PartPlanner& other) {
  if (other.empty_) return;
  while (width_ < other.width_) widen();
  for (int64_t bin = other.low_; bin <= other.high_; ++bin) {
    const Weight& w = other.bins_[slot(bin)];
    if (w.events > 0) add_weight(bin * other.width_, w);
  }
  rows_ += other.rows_;
}

size_t PartPlanner::slot(int64_t bin) {
  const int64_t m = bin % kBins;
  return static_cast<size_t>(m < 0 ? m + kBins : m);
}

void PartPlanner::add_weight(int64_t at_ns, const Weight& w) {
  int64_t bin = floor_div(at_ns, width_);
  if (empty_) {
    low_ = high_ = bin;
    empty_ = false;
  }
  // Wider bins until the span fits, whichever side the event lies on.
  while (std::max(high_, bin) - std::min(low_, bin) >= kBins) {
    widen();
    bin = floor_div(at_ns, width_);
  }
  low_ = std::min(low_, bin);
  high_ = std::max(high_, bin);
  bins_[slot(bin)].add(w);
}

// Bins twice as wide: bin b of the old width is bin floor(b / 2) of the new one.
void PartPlanner::widen() {
  std::vector<Weight> wider(static_cast<size_t>(kBins));
  if (!empty_) {
    for (int64_t bin = low_; bin <= high_; ++bin)
      wider[slot(floor_div(bin, 2))].add(bins_[slot(bin)]);
    low_ = floor_div(low_, 2);
    high_ = floor_div(high_, 2);
  }
  bins_.swap(wider);
  width_ *= 2;
}

std::vector<int64_t> PartPlanner::plan(Database& db, const RowFilter& filter,
                                       const std::vector<SourceProcess>& processes,
                                       const TimesScan& scan) {
  if (max_events_ <= 0) return {INT64_MIN};
  std::set<std::tuple<int64_t, int, int64_t>>
      tracks;  // counter tracks: each part may start with a sample of each
  for (const SourceProcess& p : processes) {
    select_process(db, p.process_id);
    add_samples(db, &tracks, p.process_id);
  }
  // Small timelines (nearly all) are settled by counting rows: at most 4 events each.
  const int64_t worst_event_bytes = 1024;
  if (rows_ == 0 || (rows_ * 4 <= max_events_ && rows_ * 4 * worst_event_bytes <= max_bytes_))
    return {INT64_MIN};
  const int64_t reserved = static_cast<int64_t>(tracks.size());
  Greedy greedy(std::max<int64_t>(1, max_events_ - reserved),
                max_bytes_ - reserved * kCounterBytes);
  fill(db, filter, processes, scan, greedy);
  return greedy.take();
}

// The bins in time order into the greedy parts; a bin that alone exceeds the budget is planned
// again by a planner of its own time range (one more pass over event times), in finer bins.
void PartPlanner::fill(Database& db, const RowFilter& filter,
                       const std::vector<SourceProcess>& processes, const TimesScan& scan,
                       Greedy& greedy) const {
  for (int64_t bin = low_; !empty_ && bin <= high_; ++bin) {
    const Weight& w = bins_[slot(bin)];
    if (w.events == 0) continue;
    const int64_t bin_lo = bin * width_;
    if (greedy.fits(w)) {
      greedy.add(w);
    } else if (!greedy.fits_alone(w) && width_ > 1) {
      PartPlanner finer(max_events_, max_bytes_, bin_lo, bin_lo + width_);
      for (const SourceProcess& p : processes) {
        select_process(db, p.process_id);
        finer.begin_process(db);
        if (scan)
          scan(db, filter, {&finer});
        else
          scan_event_times(db, filter, {&finer});
        finer.add_samples(db, nullptr, p.process_id);
      }
      finer.fill(db, filter, processes, scan, greedy);
    } else {
      greedy.cut(bin_lo);
      greedy.add(w);
    }
  }
}

}  // namespace prof::report
