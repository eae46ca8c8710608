#include "report/timeline_events.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "common/record.hpp"

namespace prof::report {

namespace {
// meta start_ns, or the earliest event when one is earlier (no ts is negative); 0 for nothing.
int64_t origin_from(Database& db, std::optional<int64_t> earliest_event) {
  const bool have_events = earliest_event.has_value();
  const int64_t earliest = earliest_event.value_or(0);
  if (auto start = meta_value(db, "start_ns")) {
    long long start_ns = 0;
    if (std::sscanf(start->c_str(), "%lld", &start_ns) == 1)
      return have_events ? std::min<int64_t>(start_ns, earliest) : start_ns;
  }
  return earliest;
}
}  // namespace

int64_t timeline_origin_ns(Database& db, const EventExtents& extents) {
  std::optional<int64_t> earliest;
  for (const EventExtents::Span* span : {&extents.api_calls, &extents.kernels, &extents.copies})
    if (span->count > 0) earliest = std::min(earliest.value_or(span->min_ns), span->min_ns);
  return origin_from(db, earliest);
}

namespace {
void read_names(TimelineContext& ctx) {
  if (ctx.names_read) return;
  ctx.names_read = true;
  Statement apis = ctx.db.prepare("SELECT api_id, name, runtime_id FROM api_names");
  while (apis.step())
    ctx.api_names[apis.column_int(0)] = {std::string(apis.column_text(1)), apis.column_int(2)};
  Statement directions = ctx.db.prepare("SELECT direction, name FROM copy_directions");
  while (directions.step()) ctx.direction_names[directions.column_int(0)] = directions.column_text(1);
}
}  // namespace

const TimelineLanes& TimelineContext::timeline_lanes() {
  if (lanes) return *lanes;
  if (!own_lanes) {
    own_lanes = std::make_unique<TimelineLanes>();
    scan_events(db, filter, {own_lanes.get()});
  }
  return *own_lanes;
}

const TimelineContext::ApiName& TimelineContext::api_name(int64_t api_id) {
  read_names(*this);
  auto it = api_names.find(api_id);
  if (it == api_names.end()) it = api_names.emplace(api_id, ApiName{"unknown API " + std::to_string(api_id), 0}).first;
  return it->second;
}

const std::string& TimelineContext::direction_name(int64_t direction) {
  read_names(*this);
  auto it = direction_names.find(direction);
  if (it == direction_names.end())
    it = direction_names.emplace(direction, "Direction " + std::to_string(direction)).first;
  return it->second;
}

const std::string& TimelineContext::kernel_name(int64_t name_id) {
  if (const std::string* known = kernel_names.find(name_id)) return *known;
  Statement st = db.prepare("SELECT value FROM strings WHERE string_id = ?1");
  st.bind(1, name_id);
  if (st.step()) return kernel_names.get(name_id, st.column_text(0));
  return kernel_names.get(name_id, "unknown kernel " + std::to_string(name_id));
}

JsonObject timeline_other_data(Database& db, std::string_view view, int64_t origin_ns) {
  JsonObject data;
  for (const auto& [key, value] : read_meta(db)) data.add(key, value);
  data.add("view", view);
  data.add("time_origin_ns", origin_ns);
  JsonObject drops = timeline_drops(db);
  if (!drops.empty()) data.add_raw("drops", drops.text());
  return data;
}

JsonObject timeline_drops(Database& db) {
  JsonObject drops;
  Statement st = db.prepare("SELECT cause, count FROM drops ORDER BY cause");
  while (st.step()) drops.add(st.column_text(0), st.column_int(1));
  return drops;
}

void write_api_process_metadata(TimelineContext& ctx) {
  ctx.writer.process_name(ctx.api_pid(), ctx.process_name("Runtime API"), ctx.pid_base);
  std::unordered_map<int64_t, std::pair<int64_t, std::string>> runtime_of_api;  // api_id -> runtime, its title
  {
    Statement st = ctx.db.prepare(
        "SELECT n.api_id, n.runtime_id, COALESCE(r.api_title, '') FROM api_names n"
        " LEFT JOIN runtimes r ON r.runtime_id = n.runtime_id");
    while (st.step()) runtime_of_api[st.column_int(0)] = {st.column_int(1), std::string(st.column_text(2))};
  }
  // Each thread's runtimes (distinct pairs are few), then its lanes in thread order.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, std::string>> lanes;  // (order, thread) -> runtime
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;                          // (order, thread, runtime)
  std::map<int64_t, std::string> titles;
  // Distinct (thread, api, thread order) triples, in any order: lanes are written from `seen`.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> thread_apis;
  {
    std::unordered_map<int64_t, int64_t> thread_index;
    Statement threads = ctx.db.prepare("SELECT thread_id, thread_index FROM threads");
    while (threads.step()) thread_index[threads.column_int(0)] = threads.column_int(1);
    for (const auto& [tid, api_id] : ctx.timeline_lanes().thread_apis()) {
      auto index = thread_index.find(tid);
      thread_apis.emplace_back(tid, api_id, index == thread_index.end() ? tid : index->second);
    }
  }
  for (const auto& [tid, api_id, order] : thread_apis) {
    auto api = runtime_of_api.find(api_id);
    const int64_t runtime = api == runtime_of_api.end() ? 0 : api->second.first;
    if (api != runtime_of_api.end()) titles[runtime] = api->second.second;
    seen.emplace(order, tid, runtime);
    auto [first, added] = ctx.thread_first_runtime.try_emplace(tid, runtime);
    if (!added && runtime < first->second) first->second = runtime;
  }
  for (const auto& [order, tid, runtime] : seen) {
    const int64_t lane = ctx.lane_tid(tid, runtime);
    if (lane == tid)
      ctx.writer.thread_name(ctx.api_pid(), tid, "Thread " + std::to_string(tid), order);
    else
      ctx.writer.thread_name(ctx.api_pid(), lane, titles[runtime] + " (Thread " + std::to_string(tid) + ")", order);
  }
  ctx.has_api_args = ctx.db.table_exists("api_args") && [&] {
    Statement any = ctx.db.prepare("SELECT 1 FROM api_args LIMIT 1");
    return any.step();
  }();
}

namespace {

// One call of the Runtime API process, as read from its row.
struct ApiEvent {
  int64_t api_id = 0, thread_id = 0, begin_ns = 0, end_ns = 0, correlation_id = 0, result = 0, device = 0,
          bytes = 0, aux = 0;
  std::optional<int64_t> sequence, stream;
  std::optional<std::string> args;  // name:value pairs of api_args
};

void read_api_event(const Statement& st, bool with_args, ApiEvent& e) {
  e.api_id = st.column_int(0);
  e.thread_id = st.column_int(1);
  e.begin_ns = st.column_int(2);
  e.end_ns = st.column_int(3);
  e.sequence = column_nullable(st, 4);
  e.correlation_id = st.column_int(5);
  e.result = st.column_int(6);
  e.stream = column_nullable(st, 7);
  e.device = st.column_int(8);
  e.bytes = st.column_int(9);
  e.aux = st.column_int(10);
  if (with_args && !st.column_is_null(11))
    e.args = std::string(st.column_text(11));
  else
    e.args.reset();
}

void write_api_event(TimelineContext& ctx, const ApiEvent& e) {
  JsonObject& args = ctx.args;
  args.clear();
  if (e.sequence)
    args.add("sequence", *e.sequence);
  else
    args.add_null("sequence");
  args.add("correlation_id", e.correlation_id).add("result", e.result);
  if (e.stream)
    args.add("stream", *e.stream);
  else
    args.add_null("stream");
  args.add("device", e.device).add("bytes", e.bytes).add("aux", e.aux);
  if (e.args) {
    // name:value pairs of api_args (names are the runtime descriptions' identifiers).
    std::string_view pairs = *e.args;
    while (!pairs.empty()) {
      const size_t comma = pairs.find(','), colon = pairs.find(':');
      std::string_view pair = pairs.substr(0, comma);
      if (colon < pair.size()) {
        long long value = 0;
        std::from_chars(pair.data() + colon + 1, pair.data() + pair.size(), value);
        args.add(pair.substr(0, colon), static_cast<int64_t>(value));
      }
      pairs = comma == std::string_view::npos ? std::string_view() : pairs.substr(comma + 1);
    }
  }
  ctx.count_row();
  const TimelineContext::ApiName& api = ctx.api_name(e.api_id);
  ctx.writer.complete(ctx.api_pid(), ctx.lane_tid(e.thread_id, api.runtime_id), api.name, "api", e.begin_ns, e.end_ns,
                      args);
}

bool call_order_less(const ApiEvent& a, const ApiEvent& b) {
  return std::tie(a.begin_ns, a.thread_id, a.correlation_id) < std::tie(b.begin_ns, b.thread_id, b.correlation_id);
}

}  // namespace

void write_api_events(TimelineContext& ctx) {
  // Calls in sequence order, then (begin_ns, thread_id, correlation_id) among calls of one
  // sequence. The index on sequence holds (sequence, correlation_id): walking it costs no sort, where
  // ORDER BY sequence, begin_ns, ... made SQLite sort every group of one sequence (twice the time).
  // Sequences are unique (collector/schema.hpp kAssignSequenceSql) but for calls without one (an
  // interrupted finish): then the whole order is left to SQL. Any other repeated sequence is a
  // short run, sorted here.
  auto query = [&ctx](const char* order) {
    Statement st = ctx.db.prepare(
        "SELECT c.api_id, c.thread_id, c.begin_ns, c.end_ns, c.sequence, c.correlation_id, c.result, c.stream_index,"
        " c.device, c.bytes, c.aux, " +
        std::string(ctx.has_api_args ? "(SELECT group_concat(a.name || ':' || a.value, ',') FROM api_args a"
                                       " WHERE a.correlation_id = c.correlation_id)"
                                     : "NULL") +
        " FROM api_calls c WHERE " + ctx.filter.api_condition("c") + " ORDER BY " + order);
    ctx.filter.bind(st);
    return st;
  };
  // A db numbered by id (report_db.hpp calls_numbered_by_id) and finished has every sequence:
  // its order is a rowid scan.
  const bool by_id = ctx.filter.calls_numbered_by_id;
  const bool by_index = ctx.filter.sequence_range || (by_id && meta_value(ctx.db, "end_ns")) || [&ctx] {
    // a range holds no call without a sequence
    Statement unsequenced = ctx.db.prepare("SELECT 1 FROM api_calls WHERE sequence IS NULL LIMIT 1");
    return !unsequenced.step();
  }();
  Statement st = query(!by_index ? "c.sequence, c.begin_ns, c.thread_id, c.correlation_id"
                       : by_id   ? "c.correlation_id"
                                 : "c.sequence, c.correlation_id");
  bool more = st.step();
  std::vector<ApiEvent> run(1);  // calls of one sequence, the next one last
  for (; more; more = st.step()) {
    read_api_event(st, ctx.has_api_args, run.back());
    if (!by_index) {
      write_api_event(ctx, run.back());
      continue;
    }
    if (run.size() > 1 && run.back().sequence != run.front().sequence) {
      std::sort(run.begin(), run.end() - 1, call_order_less);
      for (auto e = run.begin(); e != run.end() - 1; ++e) write_api_event(ctx, *e);
      run.erase(run.begin(), run.end() - 1);
    }
    run.emplace_back();
  }
  run.pop_back();
  std::sort(run.begin(), run.end(), call_order_less);
  for (const ApiEvent& e : run) write_api_event(ctx, e);
}

namespace {

// The API call's thread, begin, end and name (kApiCallColumns) come from a LEFT JOIN: a kernel
// whose call was not recorded (dropped) still shows, without an arrow.
constexpr const char* kApiCallColumns = "c.thread_id, c.begin_ns, c.end_ns, c.api_id";
constexpr const char* kApiCallJoin = " LEFT JOIN api_calls c ON c.correlation_id = {}.correlation_id";

std::string api_call_join(std::string_view alias) {
  std::string join = kApiCallJoin;
  join.replace(join.find("{}"), 2, alias);
  return join;
}

void write_flow(TimelineContext& ctx, const Statement& st, int api_column, int64_t correlation_id, Lane lane,
                int64_t device_begin_ns) {
  const std::optional<int64_t> call_thread = column_nullable(st, api_column);
  if (!call_thread) return;  // the call was not recorded (dropped): no arrow
  const int64_t call_begin_ns = st.column_int(api_column + 1);
  const TimelineContext::ApiName& api = ctx.api_name(st.column_int(api_column + 3));
  FlowSource source{api.name, "api", call_begin_ns, st.column_int(api_column + 2)};
  const int64_t call_lane = ctx.lane_tid(*call_thread, api.runtime_id);
  ctx.writer.flow(correlation_id, ctx.api_pid(), call_lane, call_begin_ns, lane.pid, lane.tid, device_begin_ns,
                  source);
}

}  // namespace

void write_copy_events(TimelineContext& ctx, const CopyPlacement& place) {
  Statement st = ctx.db.prepare(
      "SELECT m.correlation_id, m.device, m.stream_index, m.direction, m.bytes, m.device_begin_ns,"
      " m.device_end_ns, NULL, " + std::string(kApiCallColumns) + " FROM copies m" + api_call_join("m") +
      " WHERE m.device_begin_ns IS NOT NULL AND m.device_end_ns IS NOT NULL AND " +
      ctx.filter.activity_condition("m") + " ORDER BY m.device, m.device_begin_ns, m.correlation_id");
  ctx.filter.bind(st);
  while (st.step()) {
    int64_t correlation_id = st.column_int(0), direction = st.column_int(3), stream = st.column_int(2);
    Lane lane = place(st.column_int(1), direction, stream);
    lane.pid += ctx.pid_base;
    JsonObject& args = ctx.args;
    args.clear();
    args.add("bytes", st.column_int(4)).add("direction", ctx.direction_name(direction)).add("stream", stream);
    args.add("correlation_id", correlation_id);
    int64_t begin_ns = st.column_int(5);
    ctx.count_row();
    ctx.writer.complete(lane.pid, lane.tid, copy_slice_name(direction), "copy", begin_ns, st.column_int(6), args);
    write_flow(ctx, st, 8, correlation_id, lane, begin_ns);
  }
}

void write_kernel_events(TimelineContext& ctx, const KernelPlacement& place) {
  Statement st = ctx.db.prepare(
      "SELECT k.correlation_id, k.device, k.stream_index, k.name_id, k.function_address, k.grid_x, k.grid_y,"
      " k.grid_z, k.block_x, k.block_y, k.block_z, k.shared_mem_bytes, k.device_begin_ns, k.device_end_ns, " +
      std::string(kApiCallColumns) + " FROM kernels k" + api_call_join("k") +
      " WHERE k.device_begin_ns IS NOT NULL AND k.device_end_ns IS NOT NULL AND " +
      ctx.filter.activity_condition("k") + " ORDER BY k.device, k.device_begin_ns, k.correlation_id");
  ctx.filter.bind(st);
  std::string text;
  char unknown[64];
  auto triple = [&st, &text](int first) -> std::string_view {
    text.assign("(");
    append_int(text, st.column_int(first));
    text.push_back(',');
    append_int(text, st.column_int(first + 1));
    text.push_back(',');
    append_int(text, st.column_int(first + 2));
    text.push_back(')');
    return text;
  };
  while (st.step()) {
    int64_t correlation_id = st.column_int(0), stream = st.column_int(2);
    Lane lane = place(st.column_int(1), stream);
    lane.pid += ctx.pid_base;
    JsonObject& args = ctx.args;
    args.clear();
    args.add("grid", triple(5));
    args.add("block", triple(8)).add("shared_mem_bytes", st.column_int(11));
    args.add("stream", stream).add("correlation_id", correlation_id);
    int64_t begin_ns = st.column_int(12);
    std::string_view name;
    if (st.column_is_null(3)) {
      std::snprintf(unknown, sizeof unknown, "unknown kernel at 0x%llx",
                    static_cast<unsigned long long>(st.column_int(4)));
      name = unknown;
    } else {
      name = ctx.kernel_name(st.column_int(3));
    }
    ctx.count_row();
    ctx.writer.complete(lane.pid, lane.tid, name, "kernel", begin_ns, st.column_int(13), args);
    write_flow(ctx, st, 14, correlation_id, lane, begin_ns);
  }
}

namespace {
bool is_known_direction(int64_t direction) {
  return direction >= 0 && direction <= static_cast<int64_t>(CopyDirection::kUnknown);
}
}  // namespace

std::string copy_slice_name(int64_t direction) {
  if (!is_known_direction(direction)) return "Copy";
  switch (static_cast<CopyDirection>(direction)) {
    case CopyDirection::kHostToHost: return "CopyHostToHost";
    case CopyDirection::kHostToDevice: return "CopyHostToDevice";
    case CopyDirection::kDeviceToHost: return "CopyDeviceToHost";
    case CopyDirection::kDeviceToDevice: return "CopyDeviceToDevice";
    case CopyDirection::kDefault: return "CopyDefault";
    case CopyDirection::kPeer: return "CopyPeerToPeer";
    case CopyDirection::kMemset: return "Memset";
    case CopyDirection::kUnknown: return "CopyUnknown";
  }
  return "Copy";
}

int64_t copy_lane_order(int64_t direction) {
  if (!is_known_direction(direction)) return 8 + (direction < 0 ? 0 : direction);
  switch (static_cast<CopyDirection>(direction)) {
    case CopyDirection::kHostToDevice: return 0;
    case CopyDirection::kDeviceToHost: return 1;
    case CopyDirection::kDeviceToDevice: return 2;
    case CopyDirection::kHostToHost: return 3;
    case CopyDirection::kPeer: return 4;
    case CopyDirection::kDefault: return 5;
    case CopyDirection::kMemset: return 6;
    case CopyDirection::kUnknown: return 7;
  }
  return 8 + direction;
}

std::string stream_lane_name(const TimelineLabels& labels, int64_t stream_index) {
  return labels.stream + " " + std::to_string(stream_index);
}

}  // namespace prof::report
