// The memory-in-use curve of one series (report/memory.hpp) for a chart: every change of the
// bytes in use goes in, in time order, and at most kMaxCurvePoints come out, the peak among them.
// Memory stays constant however many allocations the run made.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prof::report {

inline constexpr size_t kCurveBuckets = 250;
inline constexpr size_t kMaxCurvePoints = 4 * kCurveBuckets;

struct CurvePoint {
  int64_t at_ns = 0;
  int64_t bytes = 0;
  int64_t order = 0;  // arrival order: changes at one time keep theirs
};

// Splits time into at most kCurveBuckets buckets of equal width, doubling the width (and merging
// neighbours) whenever a change falls past the last one, so the range need not be known in
// advance. Each bucket keeps its first, lowest, highest and last change: the highest of all
// buckets is the series' peak, and each bucket's last is the value the next one starts from.
class MemoryCurveSampler {
 public:
  // Changes arrive in time order; an earlier one is counted in the latest bucket.
  void add(int64_t at_ns, int64_t bytes);
  // The kept changes in time order (at most kMaxCurvePoints).
  std::vector<CurvePoint> points() const;
  int64_t changes() const { return next_order_; }

 private:
  struct Bucket {
    int64_t index = 0;
    CurvePoint first, low, high, last;
  };
  void coarsen();

  std::vector<Bucket> buckets_;  // by index, ascending
  int64_t origin_ns_ = 0;
  int64_t width_ns_ = 1;
  int64_t next_order_ = 0;
};

}  // namespace prof::report
