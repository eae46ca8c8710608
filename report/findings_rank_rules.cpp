// The rank-imbalance rule (docs/findings.md): across the ranks of a merged db, the ranks whose
// device busy time or time in host-runtime (MPI) calls is far from the median rank's.
#include <algorithm>
#include <cstdlib>

#include "report/findings_rules.hpp"

namespace prof::report::findings {

namespace {

struct Metric {
  const char* name;  // "device busy time"
  int64_t ProcessTotals::*value;
  const char* title;
  const char* fix;
};

constexpr Metric kMetrics[] = {
    {"device busy time", &ProcessTotals::device_busy_ns,
     "Rank imbalance: the ranks' devices do unequal work",
     "Balance the work across ranks (the decomposition of the data): the slowest rank sets the "
     "pace of every exchange."},
    {"time in MPI calls", &ProcessTotals::host_runtime_ns,
     "Rank imbalance: the ranks wait unequally in MPI",
     "The ranks that wait longest wait for the slowest: balance the work before the exchanges, "
     "or overlap the communication with computation."},
};

// The median of the values (the mean of the middle two for an even count).
int64_t median_of(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void metric_finding(const std::vector<const ProcessTotals*>& ranks, const Metric& metric,
                    const AnalyzeOptions& options, std::vector<Finding>& out) {
  std::vector<int64_t> values;
  for (const ProcessTotals* rank : ranks) values.push_back(rank->*metric.value);
  const int64_t median = median_of(values);
  if (median <= 0) return;
  Finding f;
  std::string outliers;
  for (const ProcessTotals* rank : ranks) {
    const int64_t difference = rank->*metric.value - median;
    if (std::llabs(difference) <= options.rank_imbalance_share * static_cast<double>(median))
      continue;
    ++f.count;
    outliers += (outliers.empty() ? "" : "; ") + std::string("rank ") +
                std::to_string(*rank->rank) + " " + duration_text(rank->*metric.value) + " (" +
                (difference > 0 ? "+" : "-") + duration_text(std::llabs(difference)) + ")";
    if (std::llabs(difference) > f.time_at_stake_ns) {
      f.time_at_stake_ns = std::llabs(difference);
      f.rank = rank->rank;
      f.pid = rank->pid;
      f.process_id = rank->process_id;
    }
  }
  if (f.count == 0) return;
  f.title = metric.title;
  f.method =
      std::string("the largest difference of one rank's ") + metric.name + " to the median rank's";
  f.evidence = std::string(metric.name) + " of the median rank " + duration_text(median) +
               " over " + std::to_string(ranks.size()) + " ranks; off by more than " +
               std::to_string(static_cast<int>(options.rank_imbalance_share * 100)) +
               "%: " + outliers;
  f.fix = metric.fix;
  out.push_back(std::move(f));
}

}  // namespace

void rank_imbalance(const std::vector<ProcessTotals>& processes, const AnalyzeOptions& options,
                    std::vector<Finding>& out) {
  std::vector<const ProcessTotals*> ranks;
  for (const ProcessTotals& process : processes)
    if (process.rank) ranks.push_back(&process);
  if (ranks.size() < 2) return;
  for (const Metric& metric : kMetrics) metric_finding(ranks, metric, options, out);
}

}  // namespace prof::report::findings
