// The statistics `prof --compare` judges per-call durations with (docs/compare.md, "The rule"):
// a one-sided Mann-Whitney rank test and a bounded, reproducible sample of an entry's durations.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prof::report {

// Mann-Whitney U (Wilcoxon rank-sum) of `now` against `base`, both directions one-sided.
// p_greater: the chance, were both sides drawn from one distribution, of `now`'s rank sum being at
// least the observed one (small: `now` tends to be larger); p_less the other way. Ties get mid
// ranks. Exact (the permutation distribution of the mid-rank sum, ties included) when the two sides
// hold at most kExactRankTestValues values together, else the normal approximation with the tie
// correction of the variance and a continuity correction of 0.5. Empty sides, or every value tied,
// give p = 1 both ways.
struct RankTest {
  double p_greater = 1.0, p_less = 1.0;
  double u_now = 0;  // U of `now`: how many (base, now) pairs have now > base, ties counting 1/2
  bool exact = false;
};
inline constexpr size_t kExactRankTestValues = 40;
RankTest rank_test(const std::vector<int64_t>& base, const std::vector<int64_t>& now);

// The smallest one-sided p the test can give with n1 and n2 values (no ties): 1 / C(n1+n2, n1).
// Below a significance level only when the sides hold enough values; 2 calls against 2 cannot go
// under 1/6.
double smallest_rank_test_p(int64_t n1, int64_t n2);

// At most kCallSampleCapacity durations of an entry, a uniform random sample of every duration
// added (reservoir sampling, algorithm R), so memory stays bounded however many calls a db holds.
// The generator is seeded by a constant: the same db gives the same sample, the same verdict.
inline constexpr size_t kCallSampleCapacity = 4096;
class CallSample {
 public:
  void add(int64_t ns);
  // Another sample of the same entry (another process of the same run): the result samples both
  // streams in proportion to how many durations each saw.
  void absorb(const CallSample& other);
  int64_t seen() const { return seen_; }
  const std::vector<int64_t>& values() const { return values_; }

 private:
  uint64_t next();
  std::vector<int64_t> values_;
  int64_t seen_ = 0;
  uint64_t state_ = 0x9e3779b97f4a7c15ULL;
};

}  // namespace prof::report
