#include "report/timeline_events.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "common/record.hpp"
#include "report/json_escape.hpp"
#include "report/text_put.hpp"

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

void read_names(TimelineContext& ctx) {
  if (ctx.names_read) return;
  ctx.names_read = true;
  Statement apis = ctx.db.prepare("SELECT api_id, name, runtime_id FROM api_names");
  while (apis.step())
    ctx.api_names[apis.column_int(0)] = {std::string(apis.column_text(1)), apis.column_int(2)};
  Statement directions = ctx.db.prepare("SELECT direction, name FROM copy_directions");
  while (directions.step())
    ctx.direction_names[directions.column_int(0)] = directions.column_text(1);
}

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
  if (it == api_names.end())
    it = api_names.emplace(api_id, ApiName{"unknown API " + std::to_string(api_id), 0}).first;
  return it->second;
}

const std::string& TimelineContext::direction_name(int64_t direction) {
  read_names(*this);
  auto it = direction_names.find(direction);
  if (it == direction_names.end())
    it = direction_names.emplace(direction, "Direction " + std::to_string(direction)).first;
  return it->second;
}

std::string_view TimelineContext::kernel_name(const KernelRow& r, std::string& scratch) {
  if (!r.names && !own_kernel_names) own_kernel_names = std::make_unique<KernelNames>(db);
  return (r.names ? *r.names : *own_kernel_names).name_or_unknown(*r.name_id, scratch);
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
  std::unordered_map<int64_t, std::pair<int64_t, std::string>>
      runtime_of_api;  // api_id -> runtime, its title
  {
    Statement st = ctx.db.prepare(
        "SELECT n.api_id, n.runtime_id, COALESCE(r.api_title, '') FROM api_names n"
        " LEFT JOIN runtimes r ON r.runtime_id = n.runtime_id");
    while (st.step())
      runtime_of_api[st.column_int(0)] = {st.column_int(1), std::string(st.column_text(2))};
  }
  // Each thread's runtimes (distinct pairs are few), then its lanes in thread order.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, std::string>>
      lanes;                                             // (order, thread) -> runtime
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;  // (order, thread, runtime)
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
      ctx.writer.os_thread_name(ctx.api_pid(), tid, "Thread " + std::to_string(tid), order);
    else
      ctx.writer.thread_name(ctx.api_pid(), lane,
                             titles[runtime] + " (Thread " + std::to_string(tid) + ")", order);
  }
  ctx.has_api_args = ctx.db.table_exists("api_args") && [&] {
    Statement any = ctx.db.prepare("SELECT 1 FROM api_args LIMIT 1");
    return any.step();
  }();
}

namespace {

void add_api_args(JsonObject& args, std::string_view pairs) {
  // name:value pairs of api_args (names are the runtime descriptions' identifiers).
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

}  // namespace

const TimelineEventWriter::Call& TimelineEventWriter::call_kind(int64_t api_id, int64_t thread_id) {
  if (last_call_ && last_call_->api_id == api_id && last_call_->thread_id == thread_id)
    return *last_call_;
  auto [it, added] = calls_.try_emplace({api_id, thread_id});
  if (added) {
    const TimelineContext::ApiName& api = ctx_.api_name(api_id);
    it->second = {api_id, thread_id, &api, json_string(api.name),
                  ctx_.lane_tid(thread_id, api.runtime_id)};
  }
  last_call_ = &it->second;
  return it->second;
}

void TimelineEventWriter::api(const ApiRow& r) {
  static constexpr std::string_view kSequence = "{\"sequence\":",
                                    kCorrelation = ",\"correlation_id\":", kResult = ",\"result\":",
                                    kStream = ",\"stream\":", kDevice = ",\"device\":",
                                    kBytes = ",\"bytes\":", kAux = ",\"aux\":", kNull = "null";
  char* const args =
      args_.at_least(kSequence.size() + kCorrelation.size() + kResult.size() + kStream.size() +
                     kDevice.size() + kBytes.size() + kAux.size() + 1 + 7 * kIntChars);
  char* p = put(args, kSequence);
  p = r.sequence ? put_int(p, *r.sequence) : put(p, kNull);
  p = put(p, kCorrelation);
  p = put_int(p, r.correlation_id);
  p = put(p, kResult);
  p = put_int(p, r.result);
  p = put(p, kStream);
  p = r.stream_index ? put_int(p, *r.stream_index) : put(p, kNull);
  p = put(p, kDevice);
  p = put_int(p, r.device);
  p = put(p, kBytes);
  p = put_int(p, r.bytes);
  p = put(p, kAux);
  p = put_int(p, r.aux);
  std::string_view args_json;
  if (r.has_args) {
    // Named arguments (MPI's peer, tag, ...): the general path.
    JsonObject& named = ctx_.args;
    named.clear();
    add_api_args(named, r.args);
    with_named_.assign(args, p);
    if (named.empty()) {
      with_named_.push_back('}');
    } else {
      with_named_.push_back(',');
      with_named_.append(named.text(), 1);  // its members and its closing brace
    }
    args_json = with_named_;
  } else {
    *p++ = '}';
    args_json = std::string_view(args, static_cast<size_t>(p - args));
  }
  const Call& call = call_kind(r.api_id, r.thread_id);
  ctx_.writer.complete_raw(ctx_.api_pid(), call.lane, call.quoted_name, "\"api\"", r.begin_ns,
                           r.end_ns, args_json);
}

void TimelineEventWriter::flow(int64_t correlation_id, const std::optional<int64_t>& call_thread,
                               const CallOf& call, Lane lane, int64_t device_begin_ns,
                               int64_t device_end_ns) {
  if (!call_thread) return;  // the call was not recorded (dropped): no arrow
  const Call& kind = call_kind(call.api_id, *call_thread);
  FlowSource source{kind.quoted_name, "\"api\"", call.begin_ns, call.end_ns};
  ctx_.writer.flow(correlation_id, ctx_.api_pid(), kind.lane, lane.pid, lane.tid, device_begin_ns,
                   device_end_ns, source);
}

void TimelineEventWriter::copy(const CopyRow& r) {
  if (!r.device_begin_ns || !r.device_end_ns) return;  // no device time: not drawn
  Lane lane = place_copy_(r.device, r.direction, r.stream_index);
  lane.pid += ctx_.pid_base;
  auto [names, added] = quoted_directions_.try_emplace(r.direction);
  if (added)
    names->second = {json_string(copy_slice_name(r.direction)),
                     json_string(ctx_.direction_name(r.direction))};
  const auto& [slice_name, direction] = names->second;
  static constexpr std::string_view kBytes = "{\"bytes\":", kDirection = ",\"direction\":",
                                    kStream = ",\"stream\":", kCorrelation = ",\"correlation_id\":";
  char* const args = args_.at_least(kBytes.size() + kDirection.size() + direction.size() +
                                    kStream.size() + kCorrelation.size() + 1 + 3 * kIntChars);
  char* p = put(args, kBytes);
  p = put_int(p, r.bytes);
  p = put(p, kDirection);
  p = put(p, direction);
  p = put(p, kStream);
  p = put_int(p, r.stream_index);
  p = put(p, kCorrelation);
  p = put_int(p, r.correlation_id);
  *p++ = '}';
  ctx_.writer.complete_raw(lane.pid, lane.tid, slice_name, "\"copy\"", *r.device_begin_ns,
                           *r.device_end_ns, std::string_view(args, static_cast<size_t>(p - args)));
  flow(r.correlation_id, r.call_thread_id, r.call, lane, *r.device_begin_ns, *r.device_end_ns);
}

void TimelineEventWriter::kernel(const KernelRow& r) {
  if (!r.device_begin_ns || !r.device_end_ns) return;
  Lane lane = place_kernel_(r.device, r.stream_index);
  lane.pid += ctx_.pid_base;
  static constexpr std::string_view kGrid = "{\"grid\":\"(", kBlock = ")\",\"block\":\"(",
                                    kShared = ")\",\"shared_mem_bytes\":", kStream = ",\"stream\":",
                                    kCorrelation = ",\"correlation_id\":";
  char* const args = args_.at_least(kGrid.size() + kBlock.size() + kShared.size() + kStream.size() +
                                    kCorrelation.size() + 1 + 4 + 9 * kIntChars);
  char* p = put(args, kGrid);
  for (int i = 0; i < 3; ++i) {
    if (i > 0) *p++ = ',';
    p = put_int(p, r.grid[i]);
  }
  p = put(p, kBlock);
  for (int i = 0; i < 3; ++i) {
    if (i > 0) *p++ = ',';
    p = put_int(p, r.block[i]);
  }
  p = put(p, kShared);
  p = put_int(p, r.shared_mem_bytes);
  p = put(p, kStream);
  p = put_int(p, r.stream_index);
  p = put(p, kCorrelation);
  p = put_int(p, r.correlation_id);
  *p++ = '}';
  const std::string_view args_json(args, static_cast<size_t>(p - args));
  if (!r.name_id) {
    char unknown[64];
    std::snprintf(unknown, sizeof unknown, "unknown kernel at 0x%llx",
                  static_cast<unsigned long long>(r.function_address));
    ctx_.writer.complete_raw(lane.pid, lane.tid, json_string(unknown), "\"kernel\"",
                             *r.device_begin_ns, *r.device_end_ns, args_json);
  } else {
    quoted_kernel_name_.clear();
    append_json_string(quoted_kernel_name_, ctx_.kernel_name(r, unknown_kernel_name_));
    ctx_.writer.complete_raw(lane.pid, lane.tid, quoted_kernel_name_, "\"kernel\"",
                             *r.device_begin_ns, *r.device_end_ns, args_json);
  }
  flow(r.correlation_id, r.call_thread_id, r.call, lane, *r.device_begin_ns, *r.device_end_ns);
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
