// The findings rules that read the calls: blocking copies, a wait after every launch, allocation
// churn and failed calls (docs/findings.md).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "report/findings_rules.hpp"
#include "runtimes/runtimes.hpp"

namespace prof::report::findings {

namespace {

HookActivity activity_of(const CallRow& call) {
  const ApiInfo* info = find_api(call.api_id);
  return info ? info->activity : HookActivity::kNone;
}

bool is_launch(const CallRow& call) {
  return call.result == 0 && activity_of(call) == HookActivity::kKernel;
}

// One thread's launches in call order, each with the first wait call made after it and before
// the thread's next launch (null: none).
struct Launch {
  const CallRow* call;
  const CallRow* wait;
};

std::map<int64_t, std::vector<Launch>> launches_by_thread(const ProcessData& process) {
  std::map<int64_t, std::vector<Launch>> threads;
  for (const CallRow& call : process.calls) {
    if (is_launch(call)) {
      threads[call.thread_id].push_back({&call, nullptr});
    } else if (is_wait_call(call.api_id)) {
      auto found = threads.find(call.thread_id);
      if (found != threads.end() && !found->second.back().wait) found->second.back().wait = &call;
    }
  }
  return threads;
}

// The runs of consecutive waited launches, [first, last) index pairs, at least `min` long.
std::vector<std::pair<size_t, size_t>> waited_runs(const std::vector<Launch>& launches,
                                                   int64_t min) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t begin = 0;
  for (size_t i = 0; i <= launches.size(); ++i) {
    if (i < launches.size() && launches[i].wait) continue;
    if (static_cast<int64_t>(i - begin) >= min) runs.emplace_back(begin, i);
    begin = i + 1;
  }
  return runs;
}

}  // namespace

void sync_copy(const ProcessData& process, const AnalyzeOptions&, std::vector<Finding>& out) {
  SiteBuilder sites;
  int64_t count = 0, time_ns = 0, bytes = 0;
  for (const CallRow& call : process.calls) {
    const HookActivity activity = activity_of(call);
    if (call.result != 0 ||
        (activity != HookActivity::kCopySync && activity != HookActivity::kMemsetSync))
      continue;
    ++count;
    time_ns += call.duration_ns();
    bytes += call.bytes;
    sites.add(process, call, call.duration_ns());
  }
  if (count == 0) return;
  Finding f;
  f.title = "Blocking copies: the host waits for every one";
  f.count = count;
  f.time_at_stake_ns = time_ns;
  f.method =
      "host time inside the blocking copy and memset calls (the sum of their durations): what "
      "the calling thread could spend on other work if they were asynchronous";
  f.evidence = count_text(count, "blocking copy or memset", "blocking copies and memsets") +
               " moved " + bytes_text(bytes) + "; the calling threads were blocked " +
               duration_text(time_ns) + " in them";
  f.fix =
      "Use the asynchronous copy on a stream, from pinned host memory, and synchronize once "
      "where the host needs the data.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

void pageable_copy(const ProcessData& process, const AnalyzeOptions&, std::vector<Finding>& out) {
  SiteBuilder sites;
  int64_t count = 0, time_ns = 0, bytes = 0;
  for (const HostCopy& copy : process.host_copies) {
    const CallRow* call = process.call_of(copy.correlation_id);
    if (copy.pinned || !call || activity_of(*call) != HookActivity::kCopy) continue;
    ++count;
    time_ns += call->duration_ns();
    bytes += copy.bytes;
    sites.add(process, *call, call->duration_ns());
  }
  if (count == 0) return;
  Finding f;
  f.title = "Asynchronous copies of pageable host memory: they block like synchronous ones";
  f.count = count;
  f.time_at_stake_ns = time_ns;
  f.method =
      "host time inside the asynchronous copy calls whose host memory was neither a pinned "
      "allocation nor a registered range: a device stages such a copy and the call returns once "
      "it is done";
  f.evidence = count_text(count, "asynchronous copy", "asynchronous copies") + " of " +
               bytes_text(bytes) + " from or to pageable host memory held the calling threads " +
               duration_text(time_ns);
  f.fix =
      "Allocate the host buffer as pinned memory (the runtime's host allocation) or register "
      "it once, so the copy runs while the host goes on.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

void sync_after_launch(const ProcessData& process, const AnalyzeOptions& options,
                       std::vector<Finding>& out) {
  std::unordered_map<int64_t, const WorkRow*> kernel_of;
  for (const WorkRow& work : process.work)
    if (work.is_kernel()) kernel_of.emplace(work.correlation_id, &work);
  SiteBuilder sites;
  int64_t launches = 0, idle_ns = 0, runs = 0;
  for (const auto& [thread, list] : launches_by_thread(process)) {
    for (const auto& [first, last] : waited_runs(list, options.sync_after_launch_min_launches)) {
      ++runs;
      launches += static_cast<int64_t>(last - first);
      for (size_t i = first; i < last; ++i) {
        sites.add(process, *list[i].wait, list[i].wait->duration_ns());
        if (i + 1 >= last) continue;  // the run's last kernel: what follows is not the pattern
        const auto a = kernel_of.find(list[i].call->correlation_id);
        const auto b = kernel_of.find(list[i + 1].call->correlation_id);
        if (a != kernel_of.end() && b != kernel_of.end() && a->second->device == b->second->device)
          idle_ns += std::max<int64_t>(0, b->second->begin_ns - a->second->end_ns);
      }
    }
  }
  if (launches == 0) return;
  Finding f;
  f.title = "A wait after every launch: the device idles between kernels";
  f.count = launches;
  f.time_at_stake_ns = idle_ns;
  f.method =
      "device idle time from the end of each kernel of a run to the start of the run's next "
      "kernel";
  f.evidence = count_text(launches, "launch", "launches") + " in " +
               count_text(runs, "run", "runs") + " of at least " +
               std::to_string(options.sync_after_launch_min_launches) +
               " were each followed by a wait before the thread's next launch; the device idled " +
               duration_text(idle_ns) + " between those kernels";
  f.fix =
      "Drop the wait inside the loop: work on one stream runs in order, so synchronize once "
      "after the loop, or on an event only where the host reads results.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

namespace {

struct Cycle {
  const CallRow* free;
  const CallRow* alloc;  // the next allocation of the freed buffer's size
};

// Churn is a free followed by an allocation of the same size: the program gives a buffer back
// and asks for the same again. Buffers allocated once and freed at the end are not churn.
std::map<int64_t, std::vector<Cycle>> alloc_cycles(const ProcessData& process) {
  std::unordered_map<int64_t, const CallRow*> live;   // pointer -> its allocation
  std::unordered_map<int64_t, const CallRow*> freed;  // size -> a free since its last allocation
  std::map<int64_t, std::vector<Cycle>> cycles;       // by size
  for (const CallRow& call : process.calls) {
    const std::optional<MemoryRole> role = memory_role(call.api_id);
    if (!role || call.result != 0 || call.aux == 0) continue;
    if (*role != MemoryRole::kFree) {
      live[call.aux] = &call;
      if (auto found = freed.find(call.bytes); found != freed.end()) {
        cycles[call.bytes].push_back({found->second, &call});
        freed.erase(found);
      }
    } else if (auto found = live.find(call.aux); found != live.end()) {
      freed[found->second->bytes] = &call;
      live.erase(found);
    }
  }
  return cycles;
}

}  // namespace

void alloc_churn(const ProcessData& process, const AnalyzeOptions& options,
                 std::vector<Finding>& out) {
  const std::map<int64_t, std::vector<Cycle>> cycles = alloc_cycles(process);
  SiteBuilder sites;
  int64_t count = 0, time_ns = 0;
  std::string sizes;
  for (const auto& [bytes, list] : cycles) {
    if (static_cast<int64_t>(list.size()) < options.alloc_churn_min_allocations) continue;
    count += static_cast<int64_t>(list.size());
    sizes += (sizes.empty() ? "" : ", ") + bytes_text(bytes) + " " + std::to_string(list.size()) +
             " times";
    for (const Cycle& cycle : list) {
      time_ns += cycle.free->duration_ns() + cycle.alloc->duration_ns();
      sites.add(process, *cycle.free, cycle.free->duration_ns());
      sites.add(process, *cycle.alloc, cycle.alloc->duration_ns());
    }
  }
  if (count == 0) return;
  Finding f;
  f.title = "Allocation churn: the same sizes allocated and freed again and again";
  f.count = count;
  f.time_at_stake_ns = time_ns;
  f.method =
      "host time in each free and the allocation of the same size that followed it (the sum of "
      "their durations)";
  f.evidence = "freed and allocated again (size, times): " + sizes;
  f.fix =
      "Allocate once, before the loop, and reuse the buffer (or use the runtime's memory pool "
      "or stream-ordered allocation).";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

void api_errors(const ProcessData& process, const AnalyzeOptions&, std::vector<Finding>& out) {
  struct Errors {
    int64_t count = 0, first_sequence = 0;
  };
  std::map<std::pair<std::string, int64_t>, Errors> by_api;  // (api, result)
  SiteBuilder sites;
  int64_t count = 0, time_ns = 0;
  for (const CallRow& call : process.calls) {
    if (call.result == 0 || is_status_query(call.api_id)) continue;
    Errors& errors = by_api[{std::string(process.name(call.api_id)), call.result}];
    if (errors.count++ == 0) errors.first_sequence = call.sequence;
    ++count;
    time_ns += call.duration_ns();
    sites.add(process, call, call.duration_ns());
  }
  if (count == 0) return;
  std::string evidence;
  for (const auto& [key, errors] : by_api)
    evidence += (evidence.empty() ? "" : "; ") + key.first + ": result " +
                std::to_string(key.second) + " in " + count_text(errors.count, "call", "calls") +
                " (the first #" + std::to_string(errors.first_sequence) + ")";
  Finding f;
  f.title = "API calls that returned errors";
  f.count = count;
  f.time_at_stake_ns = time_ns;
  f.method = "host time in the failed calls (the sum of their durations)";
  f.evidence = evidence;
  f.fix =
      "Check every call's result: these calls failed, so what they should have done did not "
      "happen.";
  f.sites = sites.sites();
  out.push_back(std::move(f));
}

}  // namespace prof::report::findings
