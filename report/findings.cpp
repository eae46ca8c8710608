#include "report/findings.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "report/findings_rules.hpp"
#include "report/merged_db.hpp"
#include "runtimes/api_id.hpp"

namespace prof::report {

namespace {

using namespace findings;

// The rules, one line each: a rule is its name and one function (report/findings_rules.hpp).
// `always` rules are shown whatever their share of the run (an error matters however short).
struct ProcessRuleEntry {
  std::string_view name;
  ProcessRule run;
  bool always = false;
};
constexpr ProcessRuleEntry kProcessRules[] = {
    {"sync-copy", sync_copy},
    {"pageable-copy", pageable_copy},
    {"sync-after-launch", sync_after_launch},
    {"device-idle", device_idle},
    {"launch-bound", launch_bound},
    {"alloc-churn", alloc_churn},
    {"small-copies", small_copies},
    {"serialized-stream", serialized_stream},
    {"api-errors", api_errors, true},
};

struct RunRuleEntry {
  std::string_view name;
  RunRule run;
};
constexpr RunRuleEntry kRunRules[] = {
    {"rank-imbalance", rank_imbalance},
};

bool always_shown(const std::string& rule) {
  for (const ProcessRuleEntry& entry : kProcessRules)
    if (entry.name == rule) return entry.always;
  return false;
}

double share_of(int64_t part_ns, int64_t whole_ns) {
  return whole_ns > 0 ? static_cast<double>(part_ns) / static_cast<double>(whole_ns) : 0;
}

void analyze_process(const ProcessData& process, const AnalyzeOptions& options,
                     std::vector<Finding>& out) {
  const int64_t span_ns = process.span.end_ns - process.span.begin_ns;
  for (const ProcessRuleEntry& rule : kProcessRules) {
    const size_t first = out.size();
    rule.run(process, options, out);
    for (size_t i = first; i < out.size(); ++i) {
      Finding& f = out[i];
      f.rule = std::string(rule.name);
      f.process_id = process.span.process_id;
      f.pid = process.span.pid;
      f.rank = process.span.rank;
      f.share = share_of(f.time_at_stake_ns, span_ns);
    }
  }
}

}  // namespace

namespace findings {

ProcessTotals process_totals(const ProcessData& process) {
  ProcessTotals totals{process.span.process_id, process.span.pid, process.span.rank};
  std::map<int64_t, std::vector<Interval>> busy;
  for (const WorkRow& work : process.work)
    busy[work.device].push_back({work.begin_ns, work.end_ns});
  for (auto& [device, intervals] : busy) totals.device_busy_ns += total_ns(union_of(intervals));
  for (const CallRow& call : process.calls) {
    const ApiInfo* info = find_api(call.api_id);
    if (info && kRuntimes[static_cast<size_t>(info->runtime)].kind == RuntimeKind::kHost)
      totals.host_runtime_ns += call.duration_ns();
  }
  return totals;
}

}  // namespace findings

Analysis analyze(Database& db, const AnalyzeOptions& options) {
  Analysis analysis;
  std::vector<ProcessTotals> totals;
  for (const SourceProcess& source : read_processes(db)) {
    select_process(db, source.process_id);
    ProcessSpan span{source.process_id, source.pid, source.rank};
    const ProcessData process = load_process(db, span);
    analyze_process(process, options, analysis.findings);
    analysis.processes.push_back(process.span);
    totals.push_back(process_totals(process));
  }
  std::optional<int64_t> begin, end;
  for (const ProcessSpan& span : analysis.processes) {
    if (span.end_ns <= span.begin_ns) continue;  // a process without calls
    begin = std::min(begin.value_or(span.begin_ns), span.begin_ns);
    end = std::max(end.value_or(span.end_ns), span.end_ns);
  }
  analysis.run_ns = begin ? *end - *begin : 0;
  for (const RunRuleEntry& rule : kRunRules) {
    const size_t first = analysis.findings.size();
    rule.run(totals, options, analysis.findings);
    for (size_t i = first; i < analysis.findings.size(); ++i) {
      analysis.findings[i].rule = std::string(rule.name);
      analysis.findings[i].share = share_of(analysis.findings[i].time_at_stake_ns, analysis.run_ns);
    }
  }
  std::vector<Finding>& found = analysis.findings;
  found.erase(std::remove_if(found.begin(), found.end(),
                             [&](const Finding& f) {
                               return f.share < options.min_share && !always_shown(f.rule);
                             }),
              found.end());
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    return a.time_at_stake_ns > b.time_at_stake_ns;
  });
  return analysis;
}

double largest_share(const Analysis& analysis) {
  double largest = 0;
  for (const Finding& f : analysis.findings) largest = std::max(largest, f.share);
  return largest;
}

}  // namespace prof::report
