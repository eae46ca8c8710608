#include "report/timeline_parts.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "report/memory.hpp"

namespace prof::report {

namespace {

// What one event costs in a part: events, and bytes as the timeline writer lays them out (an API
// slice with its args is about 190 bytes plus its name, a kernel slice about 230 plus its name,
// a flow's two ends about 220, a counter sample about 110). A kernel or copy counts its slice,
// its arrow's two ends and the API slice the part may have to repeat for the arrow (at most 4).
using Weight = PartPlanner::Weight;

constexpr int64_t kApiBytes = 190, kKernelBytes = 230, kCopyBytes = 230, kFlowBytes = 220, kCounterBytes = 110,
                  kRepeatedBytes = 180, kMarkerBytes = 160;
constexpr int64_t kBins = PartPlanner::kBins;

using Visit = std::function<void(int64_t at_ns, const Weight& w)>;

// Every event that begins in [lo, hi), with its weight, for each process.
class EventTimes {
 public:
  EventTimes(Database& db, const RowFilter& filter, const std::vector<SourceProcess>& processes)
      : db_(db), filter_(filter), processes_(processes) {}

  void visit(int64_t lo, int64_t hi, const Visit& visit) {
    for (const SourceProcess& p : processes_) {
      select_process(db_, p.process_id);
      std::unordered_map<int64_t, int64_t> api_name_bytes, kernel_name_bytes;
      {
        Statement st = db_.prepare("SELECT api_id, length(name) FROM api_names");
        while (st.step()) api_name_bytes[st.column_int(0)] = st.column_int(1);
      }
      {
        // Every string, not the kernels' distinct names: that was one more scan of the kernels.
        Statement st = db_.prepare("SELECT string_id, length(value) FROM strings");
        while (st.step()) kernel_name_bytes[st.column_int(0)] = st.column_int(1);
      }
      Statement api = prepare("SELECT c.begin_ns, c.api_id FROM api_calls c WHERE " + filter_.api_condition("c") +
                              " AND c.begin_ns >= ?3 AND c.begin_ns < ?4", lo, hi);
      while (api.step()) {
        auto name = api_name_bytes.find(api.column_int(1));
        visit(api.column_int(0), {1, kApiBytes + (name == api_name_bytes.end() ? 16 : name->second)});
      }
      Statement kernels = prepare(
          "SELECT k.device_begin_ns, k.name_id FROM kernels k WHERE k.device_begin_ns IS NOT NULL AND"
          " k.device_end_ns IS NOT NULL AND " + filter_.activity_condition("k") +
          " AND k.device_begin_ns >= ?3 AND k.device_begin_ns < ?4", lo, hi);
      while (kernels.step()) {
        int64_t name_bytes = 40;
        if (!kernels.column_is_null(1)) {
          auto name = kernel_name_bytes.find(kernels.column_int(1));
          if (name != kernel_name_bytes.end()) name_bytes = name->second;
        }
        visit(kernels.column_int(0), {4, kKernelBytes + kFlowBytes + kRepeatedBytes + name_bytes});
      }
      Statement copies = prepare(
          "SELECT m.device_begin_ns FROM copies m WHERE m.device_begin_ns IS NOT NULL AND"
          " m.device_end_ns IS NOT NULL AND " + filter_.activity_condition("m") +
          " AND m.device_begin_ns >= ?3 AND m.device_begin_ns < ?4", lo, hi);
      while (copies.step()) visit(copies.column_int(0), {4, kCopyBytes + kFlowBytes + kRepeatedBytes});
      read_memory(db_, [&](const MemorySeries&, int64_t at_ns, int64_t) {
        if (at_ns >= lo && at_ns < hi) visit(at_ns, {1, kCounterBytes});
      });
      // Marks and ranges (--hiptx-trace): an instant, a slice or an async pair, by begin.
      if (db_.table_exists("markers")) {
        Statement markers =
            db_.prepare("SELECT begin_ns, length(message) FROM markers WHERE begin_ns >= ?1 AND begin_ns < ?2");
        markers.bind(1, lo);
        markers.bind(2, hi);
        while (markers.step()) visit(markers.column_int(0), {2, 2 * kMarkerBytes + markers.column_int(1)});
      }
    }
  }

 private:
  Statement prepare(const std::string& sql, int64_t lo, int64_t hi) {
    Statement st = db_.prepare(sql);
    filter_.bind(st);
    st.bind(3, lo);
    st.bind(4, hi);
    return st;
  }

  Database& db_;
  const RowFilter& filter_;
  const std::vector<SourceProcess>& processes_;
};

// Fills parts in time order and starts a new one when the next bin would overflow the budget.
class Greedy {
 public:
  Greedy(int64_t max_events, int64_t max_bytes) : max_events_(max_events), max_bytes_(max_bytes) {}
  bool fits(const Weight& w) const {
    return current_.events + w.events <= max_events_ && current_.bytes + w.bytes <= max_bytes_;
  }
  bool fits_alone(const Weight& w) const { return w.events <= max_events_ && w.bytes <= max_bytes_; }
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

// [lo, hi) in kBins bins; a bin that alone exceeds the budget is planned again in finer bins.
void plan_range(EventTimes& events, int64_t lo, int64_t hi, Greedy& greedy) {
  const int64_t span = hi - lo;
  const int64_t width = std::max<int64_t>(1, (span + kBins - 1) / kBins);
  const int64_t bins = (span + width - 1) / width;
  std::vector<Weight> weights(static_cast<size_t>(bins));
  events.visit(lo, hi, [&](int64_t at_ns, const Weight& w) { weights[static_cast<size_t>((at_ns - lo) / width)].add(w); });
  for (int64_t b = 0; b < bins; ++b) {
    const Weight& w = weights[static_cast<size_t>(b)];
    if (w.events == 0) continue;
    const int64_t bin_lo = lo + b * width;
    if (greedy.fits(w)) {
      greedy.add(w);
    } else if (!greedy.fits_alone(w) && width > 1) {
      plan_range(events, bin_lo, std::min(hi, bin_lo + width), greedy);
    } else {
      greedy.cut(bin_lo);
      greedy.add(w);
    }
  }
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Name lengths by id, for the byte estimate.
std::unordered_map<int64_t, int64_t> lengths(Database& db, const char* sql) {
  std::unordered_map<int64_t, int64_t> bytes;
  Statement st = db.prepare(sql);
  while (st.step()) bytes[st.column_int(0)] = st.column_int(1);
  return bytes;
}

}  // namespace

PartPlanner::PartPlanner(int64_t max_events, int64_t max_bytes)
    : max_events_(max_events), max_bytes_(max_bytes), bins_(static_cast<size_t>(kBins)) {}

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
  ++rows_;
  add_weight(at_ns, w);
}

void PartPlanner::absorb(const PartPlanner& other) {
  if (other.empty_) return;
  while (width_ < other.width_) widen();
  for (int64_t i = 0; i < kBins; ++i) {
    const Weight& w = other.bins_[static_cast<size_t>(i)];
    if (w.events > 0) add_weight((other.base_ + i) * other.width_, w);
  }
  rows_ += other.rows_;
}

void PartPlanner::add_weight(int64_t at_ns, const Weight& w) {
  int64_t bin = floor_div(at_ns, width_);
  if (empty_) {
    base_ = bin;
    empty_ = false;
  }
  while (bin < base_ || bin >= base_ + kBins) {
    widen();
    bin = floor_div(at_ns, width_);
  }
  bins_[static_cast<size_t>(bin - base_)].add(w);
}

// Bins twice as wide: bin b of the old width is bin floor(b / 2) of the new one.
void PartPlanner::widen() {
  std::vector<Weight> wider(static_cast<size_t>(kBins));
  const int64_t base = floor_div(base_, 2);
  for (int64_t i = 0; i < kBins; ++i) wider[static_cast<size_t>(floor_div(base_ + i, 2) - base)].add(bins_[static_cast<size_t>(i)]);
  bins_.swap(wider);
  base_ = base;
  width_ *= 2;
}

std::vector<int64_t> PartPlanner::plan(Database& db, const RowFilter& filter,
                                       const std::vector<SourceProcess>& processes) {
  if (max_events_ <= 0) return {INT64_MIN};
  std::set<std::tuple<int64_t, int, int64_t>> tracks;  // counter tracks: each part may start with a sample of each
  for (const SourceProcess& p : processes) {
    select_process(db, p.process_id);
    read_memory(db, [&](const MemorySeries& series, int64_t at_ns, int64_t) {
      tracks.emplace(p.process_id, static_cast<int>(series.kind), series.device);
      add(at_ns, {1, kCounterBytes});
    });
    // Marks and ranges (--hiptx-trace): an instant, a slice or an async pair, by begin.
    if (db.table_exists("markers")) {
      Statement markers = db.prepare("SELECT begin_ns, length(message) FROM markers");
      while (markers.step()) add(markers.column_int(0), {2, 2 * kMarkerBytes + markers.column_int(1)});
    }
  }
  // Small timelines (nearly all) are settled by counting rows: at most 4 events each.
  const int64_t worst_event_bytes = 1024;
  if (rows_ == 0 || (rows_ * 4 <= max_events_ && rows_ * 4 * worst_event_bytes <= max_bytes_)) return {INT64_MIN};
  EventTimes events(db, filter, processes);
  const int64_t reserved = static_cast<int64_t>(tracks.size());
  Greedy greedy(std::max<int64_t>(1, max_events_ - reserved), max_bytes_ - reserved * kCounterBytes);
  for (int64_t b = 0; b < kBins; ++b) {
    const Weight& w = bins_[static_cast<size_t>(b)];
    if (w.events == 0) continue;
    const int64_t bin_lo = (base_ + b) * width_;
    if (greedy.fits(w)) {
      greedy.add(w);
    } else if (!greedy.fits_alone(w) && width_ > 1) {
      plan_range(events, bin_lo, bin_lo + width_, greedy);
    } else {
      greedy.cut(bin_lo);
      greedy.add(w);
    }
  }
  return greedy.take();
}

}  // namespace prof::report
