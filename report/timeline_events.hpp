// The pieces both timeline views (_copy.json and _stream.json) share: the time origin, the
// Runtime API process, the copy and kernel slices with their flow arrows, and otherData. Each
// piece runs one ordered SQL cursor and writes as it steps, so memory does not grow with the trace.
#pragma once
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/chrome_json_writer.hpp"
#include "report/demangle.hpp"
#include "report/event_pass.hpp"
#include "report/kernel_names.hpp"
#include "report/report_db.hpp"
#include "report/runtime_labels.hpp"
#include "report/text_put.hpp"

namespace prof::report {

inline constexpr int64_t kRuntimeApiPid = 1;

struct Lane {
  int64_t pid;
  int64_t tid;
};

// Which lanes one process's timeline has, gathered by the report's pass over the events
// (report/event_pass.hpp) instead of a DISTINCT query per view: a few pairs per thread, device
// and stream, never one per event.
class TimelineLanes final : public EventConsumer {
 public:
  using Pairs = std::set<std::pair<int64_t, int64_t>>;
  void api(const ApiRow& r) override { add(thread_apis_, {r.thread_id, r.api_id}); }
  void kernel(const KernelRow& r) override {
    if (r.device_begin_ns && r.device_end_ns) add(kernel_streams_, {r.device, r.stream_index});
  }
  void copy(const CopyRow& r) override {
    if (!r.device_begin_ns || !r.device_end_ns) return;
    add(copy_streams_, {r.device, r.stream_index});
    if (const std::tuple lane{r.device, r.direction, r.stream_index}; lane != last_copy_lane_) {
      last_copy_lane_ = lane;
      copy_lanes_.insert(lane);
    }
  }
  const Pairs& thread_apis() const { return thread_apis_.pairs; }  // (thread_id, api_id) of calls
  const Pairs& kernel_streams() const {
    return kernel_streams_.pairs;
  }  // (device, stream) of timed kernels
  const Pairs& copy_streams() const {
    return copy_streams_.pairs;
  }  // (device, stream) of timed copies
  using Triples = std::set<std::tuple<int64_t, int64_t, int64_t>>;
  const Triples& copy_lanes() const {
    return copy_lanes_;
  }  // (device, direction, stream) of timed copies
  // Adds the lanes another consumer saw in other rows.
  void absorb(const TimelineLanes& other) {
    for (auto [mine, theirs] : {std::pair{&thread_apis_, &other.thread_apis_},
                                {&kernel_streams_, &other.kernel_streams_},
                                {&copy_streams_, &other.copy_streams_}})
      mine->pairs.insert(theirs->pairs.begin(), theirs->pairs.end());
    copy_lanes_.insert(other.copy_lanes_.begin(), other.copy_lanes_.end());
  }

 private:
  struct Set {
    Pairs pairs;
    std::pair<int64_t, int64_t> last{INT64_MIN, INT64_MIN};  // most rows repeat a recent pair
  };
  static void add(Set& set, std::pair<int64_t, int64_t> pair) {
    if (pair == set.last) return;
    set.last = pair;
    set.pairs.insert(pair);
  }
  Set thread_apis_, kernel_streams_, copy_streams_;
  Triples copy_lanes_;
  std::tuple<int64_t, int64_t, int64_t> last_copy_lane_{INT64_MIN, INT64_MIN, INT64_MIN};
};

// One process's part of a timeline. A merged timeline holds several processes: each gets its own
// block of viewer pids (pid_base + the single-process pid) and its process names a label.
struct TimelineContext {
  Database& db;
  const RowFilter& filter;
  TraceWriter& writer;
  // Kernel names for rows no pipe handed over (KernelRow::names unset), read on first use.
  std::unique_ptr<KernelNames> own_kernel_names;
  int64_t pid_base = 0;       // 0 for a single process
  std::string process_label;  // appended to process names: "" or " (pid 4242, host h)"
  TimelineLabels labels;      // the runtimes' words for streams and devices
  JsonObject args = {};       // reused for every event
  // The lanes, when the report's pass gathered them; otherwise timeline_lanes() makes a pass of its
  // own.
  const TimelineLanes* lanes = nullptr;
  std::unique_ptr<TimelineLanes> own_lanes = {};
  const TimelineLanes& timeline_lanes();

  // Each thread's lowest runtime id: its calls keep the thread's lane; another runtime's calls on
  // that thread (MPI beside HIP) get a lane of their own (lane_tid). Filled by
  // write_api_process_metadata.
  std::unordered_map<int64_t, int64_t> thread_first_runtime = {};
  bool has_api_args = false;  // the db has named call arguments (api_args) to show

  // Names by id, read once (api_names, copy_directions, strings) instead of joined per row.
  struct ApiName {
    std::string name;
    int64_t runtime_id;
  };
  const ApiName& api_name(int64_t api_id);
  const std::string& direction_name(int64_t direction);
  std::string_view kernel_name(const KernelRow& r, std::string& scratch);
  std::unordered_map<int64_t, ApiName> api_names = {};
  std::unordered_map<int64_t, std::string> direction_names = {};
  bool names_read = false;

  static constexpr int64_t kRuntimeLaneStride = 100'000'000;  // above any Linux thread id
  int64_t lane_tid(int64_t thread_id, int64_t runtime_id) const {
    auto it = thread_first_runtime.find(thread_id);
    return it == thread_first_runtime.end() || it->second == runtime_id
               ? thread_id
               : thread_id + runtime_id * kRuntimeLaneStride;
  }

  int64_t api_pid() const { return pid_base + kRuntimeApiPid; }
  std::string process_name(std::string_view name) const {
    return std::string(name) + process_label;
  }
};

// ts 0 of the timeline: meta start_ns, or the earliest begin of any covered event if one is
// earlier (so no ts is negative), or 0 for an empty run.
// `extents` are the selected process's, from the report's pass over its events.
int64_t timeline_origin_ns(Database& db, const EventExtents& extents);

// otherData: every meta key (strings), then "view", "time_origin_ns" and the drops, if any.
JsonObject timeline_other_data(Database& db, std::string_view view, int64_t origin_ns);
// The drops table as a JSON object {cause: count}; empty when nothing was dropped.
JsonObject timeline_drops(Database& db);

// Process "Runtime API" (pid 1) with a lane per OS thread (and per further runtime the thread
// called: "MPI (Thread N)"); has_api_args.
void write_api_process_metadata(TimelineContext& ctx);

// Reads the names by id (api_names, copy_directions) now: after this, ctx's name lookups use no
// SQL but kernel_name (so a writer on another thread never touches the db).
void read_names(TimelineContext& ctx);

// Where a view draws a copy and a kernel.
using CopyPlacement = Lane (*)(int64_t device, int64_t direction, int64_t stream_index);
using KernelPlacement = Lane (*)(int64_t device, int64_t stream_index);

// The events of one process's timeline, fed by the pass over its events (report/event_pass.hpp,
// in correlation id order, ScanOptions::api_args when ctx.has_api_args): every covered API call
// as an X slice on its thread's lane (with its named arguments), and every timed copy and kernel
// as an X slice on the lane `place` gives, with a flow arrow from its API call when that call is
// in the db. Copies and kernels with a NULL device time are not drawn. Kernel names come from
// KernelRow::name when the pass resolved them, else from ctx (the db).
class TimelineEventWriter final : public EventConsumer {
 public:
  TimelineEventWriter(TimelineContext& ctx, CopyPlacement place_copy, KernelPlacement place_kernel)
      : ctx_(ctx), place_copy_(place_copy), place_kernel_(place_kernel) {}
  void api(const ApiRow& r) override;
  void kernel(const KernelRow& r) override;
  void copy(const CopyRow& r) override;

 private:
  void flow(int64_t correlation_id, const std::optional<int64_t>& call_thread, const CallOf& call,
            Lane lane, int64_t device_begin_ns, int64_t device_end_ns);
  // What a call's slice needs of its API and thread, looked up once per (api, thread).
  struct Call {
    int64_t api_id = 0, thread_id = 0;
    const TimelineContext::ApiName* api = nullptr;
    std::string quoted_name;  // the API's name as a JSON string
    int64_t lane = 0;         // lane_tid
  };
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<int64_t>()(p.first * 1000003 ^ p.second);
    }
  };
  const Call& call_kind(int64_t api_id, int64_t thread_id);
  TimelineContext& ctx_;
  CopyPlacement place_copy_;
  KernelPlacement place_kernel_;
  std::unordered_map<std::pair<int64_t, int64_t>, Call, PairHash> calls_;
  const Call* last_call_ = nullptr;
  // A kernel's name as a JSON string, made per event: a cache by id would cost a copy of every
  // distinct name per view (issue 42).
  std::string quoted_kernel_name_, unknown_kernel_name_;
  std::unordered_map<int64_t, std::pair<std::string, std::string>>
      quoted_directions_;   // slice name, lane name
  LineBuffer args_;         // each event's args, written through a pointer
  std::string with_named_;  // args with named arguments (api_args)
};

// "Memory in use" counter tracks (report/memory.hpp): device and managed memory of device N in
// the process `device_pid` gives (named `device_process` when no other lane named it), pinned host
// memory in the Runtime API process; a sample at every change.
void write_memory_counters(TimelineContext& ctx,
                           const std::function<int64_t(int64_t device)>& device_pid,
                           const std::function<std::string(int64_t device)>& device_process);

// Copy directions (common/record.hpp CopyDirection values).
std::string copy_slice_name(int64_t direction);  // "CopyHostToDevice", "Memset", ...
int64_t copy_lane_order(int64_t direction);  // H2D, D2H, D2D, H2H, P2P, Default, Memset, Unknown
std::string stream_lane_name(const TimelineLabels& labels,
                             int64_t stream_index);  // "Stream 0": the default stream

}  // namespace prof::report
