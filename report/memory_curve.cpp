#include "report/memory_curve.hpp"

#include <algorithm>

namespace prof::report {

void MemoryCurveSampler::add(int64_t at_ns, int64_t bytes) {
  const CurvePoint point{at_ns, bytes, next_order_++};
  if (buckets_.empty()) origin_ns_ = at_ns;
  auto index_of = [&](int64_t t) { return t <= origin_ns_ ? 0 : (t - origin_ns_) / width_ns_; };
  int64_t index = index_of(at_ns);
  while (index >= static_cast<int64_t>(kCurveBuckets)) {
    coarsen();
    index = index_of(at_ns);
  }
  if (!buckets_.empty() && index <= buckets_.back().index) {
    Bucket& b = buckets_.back();
    if (bytes < b.low.bytes) b.low = point;
    if (bytes > b.high.bytes) b.high = point;
    b.last = point;
    return;
  }
  buckets_.push_back({index, point, point, point, point});
}

void MemoryCurveSampler::coarsen() {
  width_ns_ *= 2;
  std::vector<Bucket> merged;
  for (Bucket& b : buckets_) {
    b.index /= 2;
    if (merged.empty() || merged.back().index != b.index) {
      merged.push_back(b);
      continue;
    }
    Bucket& m = merged.back();  // m precedes b: ties keep the earlier point
    if (b.low.bytes < m.low.bytes) m.low = b.low;
    if (b.high.bytes > m.high.bytes) m.high = b.high;
    m.last = b.last;
  }
  buckets_ = std::move(merged);
}

std::vector<CurvePoint> MemoryCurveSampler::points() const {
  std::vector<CurvePoint> out;
  out.reserve(buckets_.size() * 4);
  for (const Bucket& b : buckets_) {
    CurvePoint four[] = {b.first, b.low, b.high, b.last};
    std::sort(std::begin(four), std::end(four),
              [](const CurvePoint& x, const CurvePoint& y) { return x.order < y.order; });
    for (const CurvePoint& p : four)
      if (out.empty() || out.back().order != p.order) out.push_back(p);
  }
  return out;
}

}  // namespace prof::report
