#include <catch2/catch.hpp>

#include <algorithm>

#include "report/memory_curve.hpp"

using namespace prof::report;

namespace {

int64_t highest(const std::vector<CurvePoint>& points) {
  int64_t peak = 0;
  for (const CurvePoint& p : points) peak = std::max(peak, p.bytes);
  return peak;
}

}  // namespace

TEST_CASE("a curve with few changes keeps every one", "[report][memory_curve]") {
  MemoryCurveSampler sampler;
  CHECK(sampler.points().empty());
  sampler.add(100, 10);
  sampler.add(200, 30);
  sampler.add(200, 20);  // two changes at one time keep their order
  sampler.add(5000, 0);
  const std::vector<CurvePoint> points = sampler.points();
  REQUIRE(points.size() == 4);
  CHECK(points[0].bytes == 10);
  CHECK(points[1].bytes == 30);
  CHECK(points[2].bytes == 20);
  CHECK(points[3].bytes == 0);
  CHECK(sampler.changes() == 4);
}

TEST_CASE("downsampling keeps at most kMaxCurvePoints, in time order, with the peak",
          "[report][memory_curve]") {
  MemoryCurveSampler sampler;
  // A sawtooth over a long run with one narrow spike (a single change) in the middle.
  const int64_t n = 200'000, spike_at = 123'457;
  for (int64_t i = 0; i < n; ++i) {
    int64_t bytes = (i % 97) * 1024;
    if (i == spike_at) bytes = 512 << 20;
    sampler.add(1'000'000 + i * 37, bytes);
  }
  const std::vector<CurvePoint> points = sampler.points();
  CHECK(points.size() <= kMaxCurvePoints);
  CHECK(points.size() > kMaxCurvePoints / 2);
  CHECK(highest(points) == (512 << 20));
  CHECK(std::is_sorted(points.begin(), points.end(),
                       [](const CurvePoint& a, const CurvePoint& b) { return a.at_ns < b.at_ns; }));
  // The first and the last change are kept: the curve starts and ends where the series did.
  CHECK(points.front().at_ns == 1'000'000);
  CHECK(points.back().at_ns == 1'000'000 + (n - 1) * 37);
  CHECK(points.back().bytes == ((n - 1) % 97) * 1024);
}

TEST_CASE("the peak survives whichever bucket it lands in", "[report][memory_curve]") {
  for (int64_t spike : {int64_t{0}, int64_t{1}, int64_t{499}, int64_t{4095}, int64_t{9999}}) {
    MemoryCurveSampler sampler;
    for (int64_t i = 0; i < 10'000; ++i) sampler.add(i * i, i == spike ? 1'000'000 : i % 7);
    CHECK(highest(sampler.points()) == 1'000'000);
    CHECK(sampler.points().size() <= kMaxCurvePoints);
  }
}

TEST_CASE("changes out of time order land in the latest bucket", "[report][memory_curve]") {
  MemoryCurveSampler sampler;
  sampler.add(1000, 5);
  sampler.add(900000, 7);
  sampler.add(10, 9);
  const std::vector<CurvePoint> points = sampler.points();
  CHECK(points.size() == 3);
  CHECK(highest(points) == 9);
}
