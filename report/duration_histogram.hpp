// A duration distribution in flat memory, for the median and p95 of the run summary
// (report/profile.hpp), the statistics CSVs and the terminal summary.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace prof::report {

// Durations kept as a log-linear histogram, so memory stays flat however many calls the db
// holds: exact below 256 ns, then 128 buckets per power of two (a bucket spans at most 1/128 of
// its start). Each bucket keeps its count and its smallest and largest duration, so a percentile is
// exact when its bucket holds one value (deterministic durations) or it is the bucket's first or
// last, and within 0.8% otherwise (interpolated). Total, min and max are exact.
class DurationHistogram {
 public:
  void add(int64_t ns) {
    // While every duration is the same (most kernels of a run with many names ran once), the
    // histogram is its count and that value: no bucket is allocated.
    if (count_ > 0 && buckets_.empty() && ns != low_) spill();
    if (buckets_.empty()) {  // the first duration, or the same as every one before
      ++count_;
      total_ += ns;
      low_ = high_ = ns;
      return;
    }
    add_to(bucket(key_of(ns)), Bucket{1, ns, ns});
    ++count_;
    total_ += ns;
    low_ = std::min(low_, ns);
    high_ = std::max(high_, ns);
  }
  // Adds another histogram's durations (the same kernel name in another process or string id).
  void absorb(const DurationHistogram& other) {
    if (other.count_ == 0) return;
    if (count_ == 0) {
      *this = other;
      return;
    }
    if (buckets_.empty() && other.buckets_.empty() && low_ == other.low_) {
      count_ += other.count_;
      total_ += other.total_;
      return;
    }
    if (buckets_.empty()) spill();
    if (other.buckets_.empty())
      add_to(bucket(key_of(other.low_)), Bucket{other.count_, other.low_, other.low_});
    for (const auto& [k, theirs] : other.buckets_) add_to(bucket(k), theirs);
    low_ = std::min(low_, other.low_);
    high_ = std::max(high_, other.high_);
    count_ += other.count_;
    total_ += other.total_;
  }
  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  int64_t low() const { return low_; }
  int64_t high() const { return high_; }
  // Nearest rank: the value at rank ceil(p/100 * n).
  int64_t percentile(int percent) const {
    if (count_ == 0) return 0;
    if (buckets_.empty()) return low_;  // every duration the same
    const int64_t rank = std::max<int64_t>(1, (static_cast<int64_t>(percent) * count_ + 99) / 100);
    int64_t before = 0;
    for (const auto& [k, b] : buckets_) {
      if (before + b.count >= rank) {
        const int64_t position = rank - before;  // 1..count within the bucket
        if (position == 1 || b.count == 1) return b.low;
        if (position == b.count) return b.high;
        return b.low + static_cast<int64_t>(static_cast<double>(b.high - b.low) *
                                            static_cast<double>(position - 1) /
                                            static_cast<double>(b.count - 1));
      }
      before += b.count;
    }
    return high_;
  }

 private:
  struct Bucket {
    int64_t count = 0, low = 0, high = 0;
  };
  static uint32_t key(uint64_t v) {
    if (v < 256) return static_cast<uint32_t>(v);
    const int shift = 64 - __builtin_clzll(v) - 8;  // v >> shift is in [128, 255]
    return 256 + static_cast<uint32_t>(shift - 1) * 128 + static_cast<uint32_t>((v >> shift) - 128);
  }
  static uint32_t key_of(int64_t ns) { return key(ns < 0 ? 0 : static_cast<uint64_t>(ns)); }
  static void add_to(Bucket& b, const Bucket& more) {
    b.low = b.count == 0 ? more.low : std::min(b.low, more.low);
    b.high = b.count == 0 ? more.high : std::max(b.high, more.high);
    b.count += more.count;
  }
  // The uniform durations so far as their bucket.
  void spill() { bucket(key_of(low_)) = Bucket{count_, low_, low_}; }
  Bucket& bucket(uint32_t k) {
    auto it = std::lower_bound(
        buckets_.begin(), buckets_.end(), k,
        [](const std::pair<uint32_t, Bucket>& b, uint32_t key) { return b.first < key; });
    if (it == buckets_.end() || it->first != k) it = buckets_.insert(it, {k, Bucket{}});
    return it->second;
  }
  // By key. A sorted vector, not a map: most kernels of a run with many names fill one bucket,
  // which then costs one small allocation instead of a tree node (issue 42).
  std::vector<std::pair<uint32_t, Bucket>> buckets_;
  int64_t count_ = 0, total_ = 0, low_ = 0, high_ = 0;
};

}  // namespace prof::report
