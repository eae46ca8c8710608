// The rank test and the bounded sample of report/compare_stats.hpp, against values worked out by
// hand and by enumerating every arrangement (docs/compare.md, "The rule").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "report/compare_stats.hpp"

using namespace prof::report;

TEST_CASE(
    "compare rank test: fully separated small samples give the exact one over n1+n2 choose n1",
    "[compare]") {
  RankTest t = rank_test({1, 2, 3}, {4, 5, 6});
  CHECK(t.exact);
  CHECK(t.u_now == 9);
  CHECK(t.p_greater == Approx(1.0 / 20));
  CHECK(t.p_less == Approx(1.0));
  RankTest four = rank_test({1, 2, 3, 4}, {5, 6, 7, 8});
  CHECK(four.p_greater == Approx(1.0 / 70));
  RankTest down = rank_test({5, 6, 7, 8}, {1, 2, 3, 4});
  CHECK(down.p_less == Approx(1.0 / 70));
  CHECK(down.p_greater == Approx(1.0));
}

TEST_CASE("compare rank test: exact with ties and interleaved values against every arrangement",
          "[compare]") {
  // Mid ranks 1, 3, 3, 3, 6, 6, 6, 8; the 70 arrangements of 4 of them: 10 have a sum >= 23.
  RankTest t = rank_test({1, 2, 2, 3}, {2, 3, 3, 4});
  CHECK(t.exact);
  CHECK(t.u_now == 13);
  CHECK(t.p_greater == Approx(10.0 / 70));
  CHECK(t.p_less == Approx(69.0 / 70));
  RankTest mixed = rank_test({10, 20, 30, 40, 50}, {15, 25, 35, 45, 55});
  CHECK(mixed.p_greater == Approx(87.0 / 252));
  CHECK(mixed.p_less == Approx(183.0 / 252));
}

TEST_CASE("compare rank test: normal approximation with tie and continuity corrections",
          "[compare]") {
  std::vector<int64_t> base(30), now(30);
  std::iota(base.begin(), base.end(), 0);
  std::iota(now.begin(), now.end(), 15);
  // U = 780 pairs above + 15 ties / 2; mean 450; variance 900/12 * (61 - 15 * 6 / (60 * 59)).
  RankTest t = rank_test(base, now);
  CHECK_FALSE(t.exact);
  CHECK(t.u_now == 787.5);
  CHECK(t.p_greater == Approx(3.12399246439e-07).epsilon(1e-6));
  CHECK(t.p_less == Approx(0.999999710626).epsilon(1e-9));
  // Heavily tied, as a clock with 10 ns steps gives: three values a side.
  std::vector<int64_t> b, n;
  for (int i = 0; i < 50; ++i) {
    b.push_back(i < 20 ? 1 : i < 40 ? 2 : 3);
    n.push_back(i < 20 ? 2 : i < 40 ? 3 : 4);
  }
  RankTest tied = rank_test(b, n);
  CHECK(tied.u_now == 2000);
  CHECK(tied.p_greater == Approx(2.57376814274e-08).epsilon(1e-6));
}

TEST_CASE("compare rank test: nothing to rank gives p = 1", "[compare]") {
  CHECK(rank_test({}, {1, 2}).p_greater == 1.0);
  CHECK(rank_test({5, 5, 5}, {5, 5}).p_greater == 1.0);
  CHECK(rank_test({5, 5, 5}, {5, 5}).p_less == 1.0);
  std::vector<int64_t> same(1000, 90);
  CHECK(rank_test(same, same).p_greater == 1.0);
}

TEST_CASE("compare rank test: the smallest p a sample size allows", "[compare]") {
  CHECK(smallest_rank_test_p(1, 1) == Approx(0.5));
  CHECK(smallest_rank_test_p(2, 2) == Approx(1.0 / 6));
  CHECK(smallest_rank_test_p(4, 4) == Approx(1.0 / 70));
  CHECK(smallest_rank_test_p(6, 6) == Approx(1.0 / 924));
  CHECK(smallest_rank_test_p(0, 6) == 1.0);
  CHECK(smallest_rank_test_p(5000, 5000) == 0.0);  // underflows, never overflows
}

TEST_CASE("compare call sample: bounded, complete below the capacity, reproducible", "[compare]") {
  CallSample small;
  for (int64_t i = 0; i < 100; ++i) small.add(i);
  CHECK(small.seen() == 100);
  CHECK(small.values().size() == 100);
  CallSample big, again;
  for (int64_t i = 0; i < 100000; ++i) {
    big.add(i);
    again.add(i);
  }
  CHECK(big.seen() == 100000);
  REQUIRE(big.values().size() == kCallSampleCapacity);
  CHECK(big.values() == again.values());
  // A uniform sample of 0..99999: its mean is near 50000 (sd of the mean ~450).
  const double mean =
      std::accumulate(big.values().begin(), big.values().end(), 0.0) / kCallSampleCapacity;
  CHECK(mean > 47000);
  CHECK(mean < 53000);
}

TEST_CASE("compare call sample: two processes of a run share the capacity by what each saw",
          "[compare]") {
  CallSample a, b;
  for (int64_t i = 0; i < 30000; ++i) a.add(1);
  for (int64_t i = 0; i < 10000; ++i) b.add(2);
  a.absorb(b);
  CHECK(a.seen() == 40000);
  REQUIRE(a.values().size() == kCallSampleCapacity);
  const auto twos = std::count(a.values().begin(), a.values().end(), 2);
  CHECK(twos == static_cast<long>(kCallSampleCapacity / 4));
  CallSample c, d;
  c.add(7);
  d.add(8);
  c.absorb(d);
  CHECK(c.values() == std::vector<int64_t>{7, 8});
}
