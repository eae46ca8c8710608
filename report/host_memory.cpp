#include "report/host_memory.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "runtimes/runtimes.hpp"

namespace prof::report {
namespace {

// A call that pins or unpins host memory, from its runtime's description.
struct PinApi {
  int runtime;
  bool adds;        // allocates or registers (else frees or unregisters)
  bool registered;  // a register/unregister (PinCall), else a pinned allocation or a free
};

// A range becomes pinned when its call returns (end_ns) and stops being pinned when the call
// that ends it begins (begin_ns).
struct PinEvent {
  int64_t at_ns;
  bool adds;
  uint64_t base;
  uint64_t bytes;
  int runtime;
  bool registered;
};

struct Range {
  uint64_t end;
  int runtime;
  bool registered;
};

std::map<int64_t, PinApi> pin_apis(Database& db) {
  std::map<int64_t, PinApi> apis;
  Statement st = db.prepare("SELECT api_id FROM api_names");
  while (st.step()) {
    const int64_t id = st.column_int(0);
    if (id < 0 || id > UINT16_MAX) continue;
    const auto api_id = static_cast<uint16_t>(id);
    const ApiInfo* info = find_api(api_id);
    if (!info) continue;
    const int runtime = static_cast<int>(info->runtime);
    if (std::optional<PinRole> pin = pin_role(api_id))
      apis[id] = {runtime, *pin == PinRole::kRegister, true};
    else if (std::optional<MemoryRole> role = memory_role(api_id))
      if (*role == MemoryRole::kAllocHost || *role == MemoryRole::kFree)
        apis[id] = {runtime, *role == MemoryRole::kAllocHost, false};
  }
  return apis;
}

// Additions before removals at the same time: a range freed in the nanosecond a copy began was
// still pinned for it.
std::vector<PinEvent> pin_events(Database& db, const std::map<int64_t, PinApi>& apis) {
  std::vector<PinEvent> events;
  if (apis.empty()) return events;
  std::string ids;
  for (const auto& [id, api] : apis)
    ids += (ids.empty() ? "" : ",") + std::to_string(id);  // our own integers
  Statement st = db.prepare(
      "SELECT api_id, begin_ns, end_ns, bytes, aux FROM api_calls WHERE result = 0 AND api_id IN "
      "(" +
      ids + ")");
  while (st.step()) {
    const PinApi& api = apis.at(st.column_int(0));
    const auto pointer = static_cast<uint64_t>(st.column_int(4));
    if (pointer == 0) continue;
    events.push_back({api.adds ? st.column_int(2) : st.column_int(1), api.adds, pointer,
                      static_cast<uint64_t>(st.column_int(3)), api.runtime, api.registered});
  }
  std::stable_sort(events.begin(), events.end(), [](const PinEvent& a, const PinEvent& b) {
    return a.at_ns != b.at_ns ? a.at_ns < b.at_ns : a.adds > b.adds;
  });
  return events;
}

std::vector<HostCopy> copy_calls(Database& db) {
  std::vector<HostCopy> copies;
  Statement st = db.prepare(
      "SELECT c.correlation_id, c.sequence, c.api_id, c.aux, c.bytes, a.value, c.begin_ns, "
      "c.end_ns, k.device_begin_ns, k.device_end_ns FROM api_calls c JOIN api_args a ON "
      "a.correlation_id = c.correlation_id AND a.name = ?1 LEFT JOIN copies k ON "
      "k.correlation_id = c.correlation_id WHERE c.result = 0 ORDER BY c.begin_ns, "
      "c.correlation_id");
  st.bind(1, kHostPointerArg);
  while (st.step()) {
    HostCopy c;
    c.correlation_id = st.column_int(0);
    if (!st.column_is_null(1)) c.sequence = st.column_int(1);
    c.api_id = st.column_int(2);
    c.direction = st.column_int(3);
    c.bytes = st.column_int(4);
    c.host_ptr = static_cast<uint64_t>(st.column_int(5));
    c.begin_ns = st.column_int(6);
    c.end_ns = st.column_int(7);
    if (!st.column_is_null(8)) c.device_begin_ns = st.column_int(8);
    if (!st.column_is_null(9)) c.device_end_ns = st.column_int(9);
    copies.push_back(c);
  }
  return copies;
}

void apply(std::map<uint64_t, Range>& live, const PinEvent& e) {
  if (e.adds) {
    live[e.base] = {e.base + e.bytes < e.base ? UINT64_MAX : e.base + e.bytes, e.runtime,
                    e.registered};
    return;
  }
  // A free ends its runtime's allocation at that pointer, an unregister its registered range.
  auto it = live.find(e.base);
  if (it != live.end() && it->second.runtime == e.runtime && it->second.registered == e.registered)
    live.erase(it);
}

bool inside(const std::map<uint64_t, Range>& live, uint64_t ptr, int64_t bytes) {
  auto it = live.upper_bound(ptr);
  if (it == live.begin()) return false;
  --it;
  const uint64_t end = ptr + static_cast<uint64_t>(std::max<int64_t>(bytes, 0));
  return end >= ptr && end <= it->second.end;
}

}  // namespace

std::vector<HostCopy> read_host_copies(Database& db) {
  if (!db.table_exists("api_args")) return {};
  std::vector<HostCopy> copies = copy_calls(db);
  if (copies.empty()) return copies;
  const std::vector<PinEvent> events = pin_events(db, pin_apis(db));
  std::map<uint64_t, Range> live;  // base -> pinned range
  size_t next = 0;
  for (HostCopy& c : copies) {
    while (next < events.size() && (events[next].at_ns < c.begin_ns ||
                                    (events[next].at_ns == c.begin_ns && events[next].adds)))
      apply(live, events[next++]);
    c.pinned = inside(live, c.host_ptr, c.bytes);
  }
  return copies;
}

}  // namespace prof::report
