#include "report/memory.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "report/csv_columns.hpp"
#include "report/csv_writer.hpp"
#include "report/time_format.hpp"
#include "runtimes/runtimes.hpp"

namespace prof::report {

const char* memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kHost: return "host (pinned)";
  }
  return "?";
}

namespace {

const char* role_name(MemoryRole role) {
  switch (role) {
    case MemoryRole::kAllocDevice: return "alloc device";
    case MemoryRole::kAllocHost: return "alloc host";
    case MemoryRole::kAllocManaged: return "alloc managed";
    case MemoryRole::kFree: return "free";
  }
  return "?";
}

struct Api {
  MemoryRole role;
  int runtime;   // RuntimeId: a pointer is freed by a call of the runtime that allocated it
  size_t stats;  // index into MemoryReport::allocations
};

struct Live {
  size_t series;
  int64_t bytes;
};

// The db's APIs that allocate or free (each runtime's MemoryCall list), by api id, with a row of
// report.allocations each.
std::map<int64_t, Api> memory_apis(Database& db, MemoryReport& report) {
  std::map<int64_t, Api> apis;
  Statement st = db.prepare(
      "SELECT n.api_id, n.name, COALESCE(r.name, '') FROM api_names n LEFT JOIN runtimes r ON "
      "r.runtime_id = "
      "n.runtime_id ORDER BY 3, 2");
  while (st.step()) {
    const int64_t id = st.column_int(0);
    const ApiInfo* info =
        id >= 0 && id <= UINT16_MAX ? find_api(static_cast<uint16_t>(id)) : nullptr;
    std::optional<MemoryRole> role = info ? memory_role(static_cast<uint16_t>(id)) : std::nullopt;
    if (!role) continue;
    report.allocations.push_back(
        {std::string(st.column_text(2)), std::string(st.column_text(1)), role_name(*role)});
    apis[id] = {*role, static_cast<int>(info->runtime), report.allocations.size() - 1};
  }
  return apis;
}

}  // namespace

MemoryReport read_memory(Database& db, const MemoryChange& on_change) {
  MemoryReport report;
  std::map<int64_t, Api> apis = memory_apis(db, report);
  if (apis.empty()) return report;
  std::string ids;
  for (const auto& [id, api] : apis)
    ids += (ids.empty() ? "" : ",") + std::to_string(id);  // our own integers
  Statement st = db.prepare(
      "SELECT api_id, device, bytes, aux, end_ns, result FROM api_calls WHERE api_id IN (" + ids +
      ") ORDER BY end_ns, correlation_id");
  std::map<std::pair<MemoryKind, int64_t>, size_t> series_of;
  std::vector<int64_t> in_use;
  std::map<std::pair<int, uint64_t>, Live> live;  // (runtime, pointer) -> allocation
  auto series_index = [&](MemoryKind kind, int64_t device) {
    auto [it, fresh] = series_of.emplace(std::make_pair(kind, device), report.series.size());
    if (fresh) {
      report.series.push_back({kind, device});
      in_use.push_back(0);
    }
    return it->second;
  };
  auto change = [&](size_t s, int64_t delta, int64_t at_ns) {
    in_use[s] += delta;
    MemorySeries& series = report.series[s];
    if (in_use[s] > series.peak_bytes) {
      series.peak_bytes = in_use[s];
      series.peak_ns = at_ns;
    }
    if (on_change) on_change(series, at_ns, in_use[s]);
  };
  while (st.step()) {
    const Api& api = apis[st.column_int(0)];
    AllocationStats& stats = report.allocations[api.stats];
    const int64_t device = st.column_int(1), bytes = st.column_int(2), at_ns = st.column_int(4);
    const uint64_t pointer = static_cast<uint64_t>(st.column_int(3));
    ++stats.calls;
    if (st.column_int(5) != 0) {  // every runtime's success is 0: a failed call changed nothing
      ++stats.failed;
      continue;
    }
    if (api.role == MemoryRole::kFree) {
      auto it = live.find({api.runtime, pointer});
      if (it == live.end()) continue;  // null, or allocated before prof saw it
      ++report.series[it->second.series].frees;
      change(it->second.series, -it->second.bytes, at_ns);
      live.erase(it);
      continue;
    }
    stats.bytes += bytes;
    stats.largest = std::max(stats.largest, bytes);
    if (pointer == 0) continue;
    const MemoryKind kind = api.role == MemoryRole::kAllocHost      ? MemoryKind::kHost
                            : api.role == MemoryRole::kAllocManaged ? MemoryKind::kManaged
                                                                    : MemoryKind::kDevice;
    const size_t s = series_index(kind, kind == MemoryKind::kHost ? -1 : device);
    ++report.series[s].allocations;
    auto [it, fresh] = live.emplace(std::make_pair(api.runtime, pointer), Live{s, bytes});
    if (!fresh) {  // the runtime handed out a live pointer again: the old allocation is gone
      change(it->second.series, -it->second.bytes, at_ns);
      it->second = Live{s, bytes};
    }
    change(s, bytes, at_ns);
  }
  for (size_t s = 0; s < report.series.size(); ++s) report.series[s].final_bytes = in_use[s];
  // Only the functions the process called.
  report.allocations.erase(std::remove_if(report.allocations.begin(), report.allocations.end(),
                                          [](const AllocationStats& a) { return a.calls == 0; }),
                           report.allocations.end());
  std::sort(report.series.begin(), report.series.end(),
            [](const MemorySeries& a, const MemorySeries& b) {
              return std::tie(a.kind, a.device) < std::tie(b.kind, b.device);
            });
  return report;
}

MemoryReport merge_memory_reports(std::vector<MemoryReport> reports) {
  if (reports.size() == 1) return std::move(reports.front());
  MemoryReport merged;
  std::map<std::pair<MemoryKind, int64_t>, MemorySeries> series;
  std::map<std::pair<std::string, std::string>, AllocationStats> stats;
  for (const MemoryReport& r : reports) {
    for (const MemorySeries& s : r.series) {
      auto [it, fresh] = series.emplace(std::make_pair(s.kind, s.device), s);
      if (fresh) continue;
      it->second.peak_bytes += s.peak_bytes;
      it->second.final_bytes += s.final_bytes;
      it->second.allocations += s.allocations;
      it->second.frees += s.frees;
      it->second.peak_ns = std::max(it->second.peak_ns, s.peak_ns);
    }
    for (const AllocationStats& a : r.allocations) {
      auto [it, fresh] = stats.emplace(std::make_pair(a.runtime, a.name), a);
      if (fresh) continue;
      it->second.calls += a.calls;
      it->second.failed += a.failed;
      it->second.bytes += a.bytes;
      it->second.largest = std::max(it->second.largest, a.largest);
    }
  }
  for (auto& [key, s] : series) merged.series.push_back(s);
  for (auto& [key, a] : stats) merged.allocations.push_back(a);
  return merged;
}

void write_memory_csv(const MemoryReport& report, TextSink& out) {
  CsvWriter csv(out);
  csv.begin_columns(kMemoryStatsColumns);
  for (const AllocationStats& a : report.allocations) {
    const int64_t sized = a.calls - a.failed;
    csv.row({a.runtime, a.name, a.role, std::to_string(a.calls), std::to_string(a.failed),
             std::to_string(a.bytes), std::to_string(a.largest),
             a.role == std::string("free") || sized <= 0
                 ? ""
                 : std::to_string(rounded_div(a.bytes, sized))});
  }
}

}  // namespace prof::report
