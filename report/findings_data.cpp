#include "report/findings_data.hpp"

#include <algorithm>
#include <cstdio>

#include "report/time_format.hpp"
#include "runtimes/api_id.hpp"

namespace prof::report::findings {

namespace {

// How many sequence numbers a site keeps (those of its calls with the most time at stake).
constexpr size_t kSiteSequences = 5;

void load_calls(Database& db, ProcessData& process) {
  // Device: the call's own column. A call without a sequence (a db whose prof stopped before
  // numbering it) takes its correlation id, which is call order within its thread.
  Statement st = db.prepare(
      "SELECT COALESCE(sequence, correlation_id), correlation_id, thread_id, begin_ns, end_ns,"
      " result, COALESCE(bytes, 0), COALESCE(aux, 0), COALESCE(stream_index, -1),"
      " COALESCE(device, 0), api_id FROM api_calls");
  while (st.step()) {
    CallRow call;
    call.sequence = st.column_int(0);
    call.correlation_id = st.column_int(1);
    call.thread_id = st.column_int(2);
    call.begin_ns = st.column_int(3);
    call.end_ns = st.column_int(4);
    call.result = st.column_int(5);
    call.bytes = st.column_int(6);
    call.aux = st.column_int(7);
    call.stream = st.column_int(8);
    call.device = st.column_int(9);
    call.api_id = static_cast<uint16_t>(st.column_int(10));
    process.calls.push_back(call);
  }
  std::sort(process.calls.begin(), process.calls.end(),
            [](const CallRow& a, const CallRow& b) { return a.sequence < b.sequence; });
  process.call_index.reserve(process.calls.size());
  for (size_t i = 0; i < process.calls.size(); ++i)
    process.call_index.emplace(process.calls[i].correlation_id, i);
}

void load_work(Database& db, ProcessData& process) {
  // Work without both device times (not harvested, device timing off) has no place in time.
  Statement st = db.prepare(
      "SELECT correlation_id, device_begin_ns, device_end_ns, 0, device, stream_index, -1"
      " FROM kernels WHERE device_begin_ns IS NOT NULL AND device_end_ns IS NOT NULL"
      " UNION ALL SELECT correlation_id, device_begin_ns, device_end_ns, bytes, device,"
      " stream_index, direction FROM copies"
      " WHERE device_begin_ns IS NOT NULL AND device_end_ns IS NOT NULL");
  while (st.step()) {
    WorkRow work;
    work.correlation_id = st.column_int(0);
    work.begin_ns = st.column_int(1);
    work.end_ns = std::max(work.begin_ns, st.column_int(2));
    work.bytes = st.column_int(3);
    work.device = st.column_int(4);
    work.stream = st.column_int(5);
    work.direction = static_cast<int>(st.column_int(6));
    process.work.push_back(work);
  }
  std::sort(process.work.begin(), process.work.end(), [](const WorkRow& a, const WorkRow& b) {
    return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.end_ns < b.end_ns;
  });
}

}  // namespace

std::string_view ProcessData::name(uint16_t api_id) const {
  const auto found = api_names.find(api_id);
  return found != api_names.end() ? std::string_view(found->second) : api_name(api_id);
}

const CallRow* ProcessData::call_of(int64_t correlation_id) const {
  const auto found = call_index.find(correlation_id);
  return found != call_index.end() ? &calls[found->second] : nullptr;
}

ProcessData load_process(Database& db, const ProcessSpan& span) {
  ProcessData process;
  process.span = span;
  Statement names = db.prepare("SELECT api_id, name FROM api_names");
  while (names.step())
    process.api_names.emplace(names.column_int(0), std::string(names.column_text(1)));
  load_calls(db, process);
  load_work(db, process);
  process.host_copies = read_host_copies(db);
  if (!process.calls.empty()) {
    int64_t begin = process.calls.front().begin_ns, end = process.calls.front().end_ns;
    for (const CallRow& call : process.calls) {
      begin = std::min(begin, call.begin_ns);
      end = std::max(end, call.end_ns);
    }
    process.span.begin_ns = begin;
    process.span.end_ns = end;
  }
  return process;
}

std::vector<Interval> union_of(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin_ns < b.begin_ns; });
  std::vector<Interval> merged;
  for (const Interval& interval : intervals) {
    if (!merged.empty() && interval.begin_ns <= merged.back().end_ns)
      merged.back().end_ns = std::max(merged.back().end_ns, interval.end_ns);
    else
      merged.push_back(interval);
  }
  return merged;
}

int64_t total_ns(const std::vector<Interval>& intervals) {
  int64_t total = 0;
  for (const Interval& interval : intervals) total += interval.end_ns - interval.begin_ns;
  return total;
}

void SiteBuilder::add(const ProcessData& process, const CallRow& call, int64_t time_ns) {
  Group& group = groups_[std::string(process.name(call.api_id))];
  FindingSite& site = group.site;
  if (site.calls == 0) {
    site.api = std::string(process.name(call.api_id));
    site.first_sequence = call.sequence;
  }
  ++site.calls;
  group.time_ns += time_ns;
  site.first_sequence = std::min(site.first_sequence, call.sequence);
  // Keeps the heaviest calls (the earlier of equal ones), whatever order the rule adds them in; a
  // call added twice (a long call over several gaps) adds its weights.
  auto& heaviest = group.heaviest;
  auto same = std::find_if(heaviest.begin(), heaviest.end(),
                           [&](const auto& entry) { return entry.second == call.sequence; });
  std::pair<int64_t, int64_t> entry{time_ns, call.sequence};
  if (same != heaviest.end()) {
    entry.first += same->first;
    heaviest.erase(same);
  }
  const auto heavier = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  heaviest.insert(std::lower_bound(heaviest.begin(), heaviest.end(), entry, heavier), entry);
  if (heaviest.size() > kSiteSequences) heaviest.pop_back();
}

std::vector<FindingSite> SiteBuilder::sites(size_t max_sites) const {
  std::vector<const Group*> order;
  for (const auto& [name, group] : groups_) order.push_back(&group);
  std::stable_sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
    return a->time_ns != b->time_ns ? a->time_ns > b->time_ns : a->site.calls > b->site.calls;
  });
  std::vector<FindingSite> sites;
  for (const Group* group : order) {
    if (sites.size() == max_sites) break;
    FindingSite site = group->site;
    for (const auto& [time_ns, sequence] : group->heaviest) site.sequences.push_back(sequence);
    std::sort(site.sequences.begin(), site.sequences.end());
    site.text = site.api + ", call" + (site.sequences.size() > 1 ? "s" : "");
    for (size_t i = 0; i < site.sequences.size(); ++i)
      site.text += (i ? ", #" : " #") + std::to_string(site.sequences[i]);
    if (site.calls > static_cast<int64_t>(site.sequences.size()))
      site.text +=
          " ... (" + std::to_string(site.calls) + " calls, those with most at stake shown)";
    sites.push_back(std::move(site));
  }
  return sites;
}

std::string duration_text(int64_t ns) { return human_duration(ns); }

std::string bytes_text(int64_t bytes) {
  // Whole units exactly; otherwise one decimal, so "1048832 B" reads as "1.0 MiB".
  const int64_t units[] = {1024 * 1024 * 1024, 1024 * 1024, 1024};
  const char* names[] = {" GiB", " MiB", " KiB"};
  for (size_t i = 0; i < 3; ++i) {
    if (bytes < units[i]) continue;
    if (bytes % units[i] == 0) return std::to_string(bytes / units[i]) + names[i];
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%s",
                  static_cast<double>(bytes) / static_cast<double>(units[i]), names[i]);
    return text;
  }
  return std::to_string(bytes) + " B";
}

std::string count_text(int64_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace prof::report::findings
