// The findings rules that read the work of each stream: launch-bound phases, small copies and
// one stream doing everything (docs/findings.md).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "common/record.hpp"
#include "report/findings_rules.hpp"
#include "runtimes/runtimes.hpp"

namespace prof::report::findings {

namespace {

bool is_transfer(const WorkRow& work) {
  const auto direction = static_cast<CopyDirection>(work.direction);
  return direction == CopyDirection::kHostToDevice || direction == CopyDirection::kDeviceToHost ||
         direction == CopyDirection::kDefault || direction == CopyDirection::kPeer;
}

bool is_copy(const WorkRow& work) {
  return !work.is_kernel() && static_cast<CopyDirection>(work.direction) != CopyDirection::kMemset;
}

int64_t median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Kernel a, then kernel b on the same stream: the device finished a before the host launched b
// (a is shorter than the time between their launches), and no wait of the launching thread came
// between (that is sync-after-launch's pattern, not the launch rate).
bool launch_limited(const ProcessData& process, const WorkRow& a, const WorkRow& b) {
  const CallRow* ca = process.call_of(a.correlation_id);
  const CallRow* cb = process.call_of(b.correlation_id);
  if (!ca || !cb || cb->begin_ns <= ca->begin_ns) return false;
  if (a.duration_ns() >= cb->begin_ns - ca->begin_ns) return false;
  for (const CallRow* call = ca + 1; call < cb; ++call)
    if (call->thread_id == ca->thread_id && is_wait_call(call->api_id)) return false;
  return true;
}

struct LaunchRuns {
  SiteBuilder sites;
  int64_t kernels = 0, runs = 0, idle_ns = 0;
  std::vector<int64_t> durations, intervals;
};

void add_run(const ProcessData& process, const std::vector<const WorkRow*>& kernels, size_t first,
             size_t last, LaunchRuns& runs) {
  ++runs.runs;
  runs.kernels += static_cast<int64_t>(last - first + 1);
  for (size_t i = first; i <= last; ++i) {
    const CallRow* call = process.call_of(kernels[i]->correlation_id);
    runs.durations.push_back(kernels[i]->duration_ns());
    if (call) runs.sites.add(process, *call, kernels[i]->duration_ns());
    if (i == last) continue;
    runs.idle_ns += std::max<int64_t>(0, kernels[i + 1]->begin_ns - kernels[i]->end_ns);
    const CallRow* next = process.call_of(kernels[i + 1]->correlation_id);
    if (call && next) runs.intervals.push_back(next->begin_ns - call->begin_ns);
  }
}

}  // namespace

void launch_bound(const ProcessData& process, const AnalyzeOptions& options,
                  std::vector<Finding>& out) {
  std::map<int64_t, std::vector<const WorkRow*>> by_stream;
  for (const WorkRow& work : process.work)
    if (work.is_kernel()) by_stream[work.stream].push_back(&work);
  LaunchRuns runs;
  for (const auto& [stream, kernels] : by_stream) {
    size_t first = 0;
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (i + 1 < kernels.size() && launch_limited(process, *kernels[i], *kernels[i + 1])) continue;
      if (static_cast<int64_t>(i - first + 1) >= options.launch_bound_min_kernels)
        add_run(process, kernels, first, i, runs);
      first = i + 1;
    }
  }
  if (runs.kernels == 0) return;
  Finding f;
  f.title = "Launch-bound: kernels shorter than the time between their launches";
  f.count = runs.kernels;
  f.time_at_stake_ns = runs.idle_ns;
  f.method = "device idle time between consecutive kernels of those runs on their stream";
  f.evidence = count_text(runs.kernels, "kernel", "kernels") + " in " +
               count_text(runs.runs, "run", "runs") + " of at least " +
               std::to_string(options.launch_bound_min_kernels) + " on one stream: median kernel " +
               duration_text(median(runs.durations)) + ", median time between launches " +
               duration_text(median(runs.intervals)) + "; the device idled " +
               duration_text(runs.idle_ns) + " between them";
  f.fix =
      "Give the device more work per launch: fuse the small kernels, or capture the sequence "
      "once in a graph and launch the graph.";
  f.sites = runs.sites.sites();
  out.push_back(std::move(f));
}

void small_copies(const ProcessData& process, const AnalyzeOptions& options,
                  std::vector<Finding>& out) {
  SiteBuilder sites;
  int64_t count = 0, small_ns = 0, small_bytes = 0, all_ns = 0;
  double best_large = 0, best_any = 0;  // bytes per ns
  for (const WorkRow& work : process.work) {
    if (!is_copy(work)) continue;
    all_ns += work.duration_ns();
    const double rate = work.duration_ns() > 0 ? static_cast<double>(work.bytes) /
                                                     static_cast<double>(work.duration_ns())
                                               : 0;
    best_any = std::max(best_any, rate);
    if (work.bytes >= options.small_copy_bytes) {
      best_large = std::max(best_large, rate);
      continue;
    }
    ++count;
    small_ns += work.duration_ns();
    small_bytes += work.bytes;
    if (const CallRow* call = process.call_of(work.correlation_id))
      sites.add(process, *call, work.duration_ns());
  }
  const double rate = best_large > 0 ? best_large : best_any;
  const int64_t at_rate =
      rate > 0 ? static_cast<int64_t>(static_cast<double>(small_bytes) / rate) : 0;
  // Fires on the small copies' own overhead (their time beyond their bytes at the best rate), not
  // on their share of all copy time: blocking copies, whose end a descheduled host delays, would
  // move that share.
  const int64_t overhead_ns = std::max<int64_t>(0, small_ns - at_rate);
  if (count < options.small_copy_min_count ||
      static_cast<double>(overhead_ns) <=
          options.small_copy_overhead_share * static_cast<double>(small_ns))
    return;
  Finding f;
  f.title = "Small copies: many copies under " + bytes_text(options.small_copy_bytes) +
            " spend most of their time on per-copy overhead";
  f.count = count;
  f.time_at_stake_ns = overhead_ns;
  f.method = std::string(
                 "an estimate: the small copies' device time minus the time their bytes "
                 "would take at the best bandwidth ") +
             (best_large > 0 ? "a copy of at least " + bytes_text(options.small_copy_bytes)
                             : std::string("any copy (no large copy ran)")) +
             " reached in this run (" + std::to_string(static_cast<int64_t>(rate * 1000)) +
             " MB/s)";
  f.evidence = count_text(count, "copy", "copies") + " of " + bytes_text(small_bytes) +
               " in all took " + duration_text(small_ns) + " of the copies' " +
               duration_text(all_ns) + " of device time";
  f.fix =
      "Batch the small copies into one (pack the data in one contiguous buffer), or keep the "
      "data on the device.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

namespace {

struct StreamWork {
  int64_t device = 0, stream = 0, begin_ns = INT64_MAX, end_ns = 0;
  std::vector<Interval> kernels, copies;
  std::vector<const WorkRow*> rows;
};

std::map<std::pair<int64_t, int64_t>, StreamWork> work_by_stream(const ProcessData& process) {
  std::map<std::pair<int64_t, int64_t>, StreamWork> streams;
  for (const WorkRow& work : process.work) {
    if (!work.is_kernel() && !is_transfer(work)) continue;
    StreamWork& s = streams[{work.device, work.stream}];
    s.device = work.device;
    s.stream = work.stream;
    s.begin_ns = std::min(s.begin_ns, work.begin_ns);
    s.end_ns = std::max(s.end_ns, work.end_ns);
    s.rows.push_back(&work);
    (work.is_kernel() ? s.kernels : s.copies).push_back({work.begin_ns, work.end_ns});
  }
  return streams;
}

// Device time of the other streams' work on `s`'s device inside `s`'s span.
int64_t others_inside(const ProcessData& process, const StreamWork& s) {
  std::vector<Interval> others;
  for (const WorkRow& work : process.work)
    if (work.device == s.device && work.stream != s.stream && work.end_ns > s.begin_ns &&
        work.begin_ns < s.end_ns)
      others.push_back({std::max(work.begin_ns, s.begin_ns), std::min(work.end_ns, s.end_ns)});
  return total_ns(union_of(std::move(others)));
}

Finding serialized_finding(const ProcessData& process, const StreamWork& s, int64_t kernel_ns,
                           int64_t copy_ns) {
  SiteBuilder sites;
  for (const WorkRow* work : s.rows)
    if (const CallRow* call = process.call_of(work->correlation_id))
      sites.add(process, *call, work->duration_ns());
  Finding f;
  f.title = "One stream does everything: copies and kernels never overlap";
  f.count = static_cast<int64_t>(s.kernels.size() + s.copies.size());
  f.time_at_stake_ns = std::min(kernel_ns, copy_ns);
  f.method =
      "the shorter of the stream's copy and kernel device time: an upper bound on what "
      "overlapping them could hide";
  f.evidence = "device " + std::to_string(s.device) + ", stream " + std::to_string(s.stream) +
               (s.stream == 0 ? " (the default stream)" : "") + ": " +
               count_text(static_cast<int64_t>(s.kernels.size()), "kernel", "kernels") + " (" +
               duration_text(kernel_ns) + ") and " +
               count_text(static_cast<int64_t>(s.copies.size()), "copy", "copies") + " (" +
               duration_text(copy_ns) + ") one after another, and no other stream busy meanwhile";
  f.fix =
      "Split the work in chunks over two or more streams, so the next chunk's copy runs "
      "while this chunk's kernel does (host buffers pinned).";
  f.sites = sites.sites();
  return f;
}

}  // namespace

void serialized_stream(const ProcessData& process, const AnalyzeOptions& options,
                       std::vector<Finding>& out) {
  for (const auto& [key, s] : work_by_stream(process)) {
    // Two of each at least: one copy in, one kernel and one copy out cannot overlap anyway.
    if (s.kernels.size() < 2 || s.copies.size() < 2) continue;
    const int64_t kernel_ns = total_ns(union_of(s.kernels));
    const int64_t copy_ns = total_ns(union_of(s.copies));
    // Work on one stream runs in order; the stream is the bottleneck only when no other stream
    // of the device kept it busy meanwhile.
    if (static_cast<double>(others_inside(process, s)) >
        options.serialized_other_share * static_cast<double>(kernel_ns + copy_ns))
      continue;
    out.push_back(serialized_finding(process, s, kernel_ns, copy_ns));
  }
}

}  // namespace prof::report::findings
