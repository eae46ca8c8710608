#include "report/compare_stats.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace prof::report {

namespace {

// Exact one-sided tails of the sum of `n_now` doubled mid ranks drawn without replacement from
// `doubled` (every arrangement equally likely): counts[k][s] = subsets of size k with sum s. The
// counts reach C(40, 20) ~ 1.4e11 at most: exact in a double.
std::pair<double, double> exact_tails(const std::vector<int64_t>& doubled, size_t n_now,
                                      int64_t observed) {
  int64_t max_sum = 0;
  for (int64_t d : doubled) max_sum += d;
  std::vector<std::vector<double>> counts(
      n_now + 1, std::vector<double>(static_cast<size_t>(max_sum) + 1, 0.0));
  counts[0][0] = 1;
  for (int64_t d : doubled)
    for (size_t k = n_now; k >= 1; --k)
      for (int64_t s = max_sum; s >= d; --s)
        counts[k][static_cast<size_t>(s)] += counts[k - 1][static_cast<size_t>(s - d)];
  double all = 0, at_least = 0, at_most = 0;
  for (int64_t s = 0; s <= max_sum; ++s) {
    const double c = counts[n_now][static_cast<size_t>(s)];
    all += c;
    if (s >= observed) at_least += c;
    if (s <= observed) at_most += c;
  }
  return {at_least / all, at_most / all};
}

}  // namespace

RankTest rank_test(const std::vector<int64_t>& base, const std::vector<int64_t>& now) {
  RankTest t;
  const size_t n1 = base.size(), n2 = now.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return t;
  std::vector<std::pair<int64_t, bool>> all;  // value, from `now`
  all.reserve(n);
  for (int64_t v : base) all.emplace_back(v, false);
  for (int64_t v : now) all.emplace_back(v, true);
  std::sort(all.begin(), all.end());
  // Doubled mid ranks keep every rank sum an integer: a tie group at 1-based ranks i+1..j has the
  // mid rank (i+1+j)/2.
  std::vector<int64_t> doubled(n);
  int64_t now_sum = 0;
  double ties = 0;  // sum of t^3 - t over the tie groups
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const auto rank2 = static_cast<int64_t>(i + 1 + j);
    for (size_t k = i; k < j; ++k) {
      doubled[k] = rank2;
      if (all[k].second) now_sum += rank2;
    }
    const double size = static_cast<double>(j - i);
    ties += size * size * size - size;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2),
               dn = static_cast<double>(n);
  t.u_now = static_cast<double>(now_sum) / 2.0 - dn2 * (dn2 + 1) / 2.0;
  if (ties == dn * dn * dn - dn) return t;  // one value only: nothing to rank
  if (n <= kExactRankTestValues) {
    t.exact = true;
    std::tie(t.p_greater, t.p_less) = exact_tails(doubled, n2, now_sum);
    return t;
  }
  const double mean = dn1 * dn2 / 2.0;
  const double variance = dn1 * dn2 / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
  if (variance <= 0) return t;
  const double sd = std::sqrt(variance);
  auto upper_tail = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  t.p_greater = std::min(1.0, upper_tail((t.u_now - mean - 0.5) / sd));
  t.p_less = std::min(1.0, upper_tail((mean - t.u_now - 0.5) / sd));
  return t;
}

double smallest_rank_test_p(int64_t n1, int64_t n2) {
  if (n1 <= 0 || n2 <= 0) return 1.0;
  // 1 / C(n1+n2, n1) as a running product, which stays in range (it underflows to 0, never
  // overflows).
  double p = 1.0;
  const int64_t k = std::min(n1, n2), n = n1 + n2;
  for (int64_t i = 1; i <= k; ++i) p *= static_cast<double>(i) / static_cast<double>(n - k + i);
  return p;
}

uint64_t CallSample::next() {
  // splitmix64: small, fast and good enough to pick reservoir slots.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void CallSample::add(int64_t ns) {
  ++seen_;
  if (values_.size() < kCallSampleCapacity) {
    values_.push_back(ns);
    return;
  }
  const uint64_t slot = next() % static_cast<uint64_t>(seen_);
  if (slot < kCallSampleCapacity) values_[slot] = ns;
}

void CallSample::absorb(const CallSample& other) {
  const int64_t seen = seen_ + other.seen_;
  if (values_.size() + other.values_.size() <= kCallSampleCapacity) {
    values_.insert(values_.end(), other.values_.begin(), other.values_.end());
    seen_ = seen;
    return;
  }
  // Each side keeps a share of the capacity in proportion to what it saw, drawn at random from its
  // sample (a partial Fisher-Yates shuffle).
  auto draw = [this](std::vector<int64_t> from, size_t count) {
    count = std::min(count, from.size());
    for (size_t i = 0; i < count; ++i) std::swap(from[i], from[i + next() % (from.size() - i)]);
    from.resize(count);
    return from;
  };
  const auto mine =
      static_cast<size_t>(std::llround(static_cast<double>(kCallSampleCapacity) *
                                       static_cast<double>(seen_) / static_cast<double>(seen)));
  std::vector<int64_t> kept = draw(values_, mine);
  std::vector<int64_t> theirs = draw(other.values_, kCallSampleCapacity - kept.size());
  kept.insert(kept.end(), theirs.begin(), theirs.end());
  values_ = std::move(kept);
  seen_ = seen;
}

}  // namespace prof::report
