// The device-idle rule (docs/findings.md): gaps between the work of a device, and what the host
// was doing in them.
#include <algorithm>
#include <map>

#include "report/findings_rules.hpp"

namespace prof::report::findings {

namespace {

std::map<int64_t, std::vector<Interval>> busy_by_device(const ProcessData& process) {
  std::map<int64_t, std::vector<Interval>> busy;
  for (const WorkRow& work : process.work)
    busy[work.device].push_back({work.begin_ns, work.end_ns});
  for (auto& [device, intervals] : busy) intervals = union_of(std::move(intervals));
  return busy;
}

// What the host did in the gaps: each call's overlap with them by API, and the time no call
// covered (on any thread).
struct HostInGaps {
  std::map<const CallRow*, int64_t> weight;  // the calls to name, and their time at stake
  std::map<std::string, int64_t> by_api;
  int64_t covered_ns = 0;
};

HostInGaps host_in_gaps(const ProcessData& process, const std::vector<Interval>& gaps) {
  HostInGaps host;
  std::vector<std::vector<Interval>> inside(gaps.size());
  for (const CallRow& call : process.calls) {
    // Gaps are sorted and disjoint: the first that ends after the call begins, then onwards.
    auto at = std::upper_bound(gaps.begin(), gaps.end(), call.begin_ns,
                               [](int64_t t, const Interval& gap) { return t < gap.end_ns; });
    int64_t overlap_ns = 0;  // a long call can span several gaps: one site entry for all
    for (; at != gaps.end() && at->begin_ns < call.end_ns; ++at) {
      const Interval clipped{std::max(at->begin_ns, call.begin_ns),
                             std::min(at->end_ns, call.end_ns)};
      if (clipped.end_ns <= clipped.begin_ns) continue;
      inside[static_cast<size_t>(at - gaps.begin())].push_back(clipped);
      overlap_ns += clipped.end_ns - clipped.begin_ns;
    }
    if (overlap_ns == 0) continue;
    host.by_api[std::string(process.name(call.api_id))] += overlap_ns;
    host.weight[&call] += overlap_ns;
  }
  for (std::vector<Interval>& calls : inside) host.covered_ns += total_ns(union_of(calls));
  return host;
}

// Each gap's end: the call that enqueued the device's next work names where the device got work
// again, weighed by the gap (a gap the host spent computing overlaps no call at all).
void add_gap_ends(const ProcessData& process, int64_t device, const std::vector<Interval>& gaps,
                  std::map<const CallRow*, int64_t>& weight) {
  for (const Interval& gap : gaps) {
    auto at = std::lower_bound(process.work.begin(), process.work.end(), gap.end_ns,
                               [](const WorkRow& work, int64_t t) { return work.begin_ns < t; });
    for (; at != process.work.end() && at->begin_ns == gap.end_ns; ++at) {
      if (at->device != device) continue;
      if (const CallRow* call = process.call_of(at->correlation_id))
        weight[call] += gap.end_ns - gap.begin_ns;
      break;
    }
  }
}

std::string host_evidence(const HostInGaps& host, int64_t gaps_ns) {
  std::vector<std::pair<int64_t, std::string>> top;
  for (const auto& [api, ns] : host.by_api) top.emplace_back(ns, api);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text = "meanwhile the host was ";
  if (top.empty()) return text + "in no API call: host computation";
  text += "in ";
  for (size_t i = 0; i < top.size() && i < 3; ++i)
    text += (i ? ", " : "") + top[i].second + " " + duration_text(top[i].first);
  const int64_t uncovered = std::max<int64_t>(0, gaps_ns - host.covered_ns);
  if (uncovered > 0)
    text += ", and in no API call for " + duration_text(uncovered) + " (host computation)";
  return text;
}

void idle_finding(const ProcessData& process, int64_t device, const std::vector<Interval>& gaps,
                  std::vector<Finding>& out) {
  const int64_t gaps_ns = total_ns(gaps);
  HostInGaps host = host_in_gaps(process, gaps);
  add_gap_ends(process, device, gaps, host.weight);
  SiteBuilder sites;
  for (const auto& [call, ns] : host.weight) sites.add(process, *call, ns);
  const bool computing = gaps_ns - host.covered_ns >= host.covered_ns;
  const auto longest = std::max_element(gaps.begin(), gaps.end(), [](const auto& a, const auto& b) {
    return a.end_ns - a.begin_ns < b.end_ns - b.begin_ns;
  });
  Finding f;
  f.title = "Device " + std::to_string(device) + " idle between its work";
  f.count = static_cast<int64_t>(gaps.size());
  f.time_at_stake_ns = gaps_ns;
  f.method =
      "the sum of the gaps over the threshold between device work (kernels, copies, "
      "memsets on any stream of the device)";
  f.evidence = count_text(f.count, "gap", "gaps") + ", " + duration_text(gaps_ns) +
               " in all, the longest " + duration_text(longest->end_ns - longest->begin_ns) +
               " at +" + duration_text(longest->begin_ns - process.span.begin_ns) + "; " +
               host_evidence(host, gaps_ns);
  f.fix = computing ? "Keep the device fed while the host computes: enqueue the next work first "
                      "(double-buffer), or move that computation to the device."
                    : "The host spends the gaps in the calls named: move them out of the loop, "
                      "or overlap them with enqueued device work.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

}  // namespace

void device_idle(const ProcessData& process, const AnalyzeOptions& options,
                 std::vector<Finding>& out) {
  // Inside the device's first and last work only: the setup before it and the teardown after it
  // are not gaps a change of the loop can close.
  for (const auto& [device, busy] : busy_by_device(process)) {
    std::vector<Interval> gaps;
    for (size_t i = 1; i < busy.size(); ++i) {
      const Interval gap{busy[i - 1].end_ns, busy[i].begin_ns};
      if (gap.end_ns - gap.begin_ns >= options.idle_gap_min_ns) gaps.push_back(gap);
    }
    if (!gaps.empty()) idle_finding(process, device, gaps, out);
  }
}

}  // namespace prof::report::findings
