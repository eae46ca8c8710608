#include "report/marker_timeline.hpp"
#include "report/timeline.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

namespace {

int64_t copy_pid(int64_t device) { return 2 + 2 * device; }
int64_t compute_pid(int64_t device) { return 3 + 2 * device; }
// Lane ids start at 1: some viewers treat tid 0 specially.
int64_t direction_tid(int64_t direction) { return direction + 1; }
int64_t stream_tid(int64_t stream_index) { return stream_index + 1; }

// Processes and lanes are named before any slice, in pid order; only lanes with timed work exist.
void write_device_metadata(TimelineContext& ctx) {
  Statement st = ctx.db.prepare(
      "SELECT kind, device, lane, name FROM ("
      " SELECT DISTINCT 0 AS kind, m.device, m.direction AS lane, COALESCE(d.name, 'Direction ' || m.direction)"
      " AS name FROM copies m LEFT JOIN copy_directions d ON d.direction = m.direction"
      " WHERE m.device_begin_ns IS NOT NULL AND m.device_end_ns IS NOT NULL AND " +
      ctx.filter.activity_condition("m") +
      " UNION SELECT DISTINCT 1, k.device, k.stream_index, '' FROM kernels k"
      " WHERE k.device_begin_ns IS NOT NULL AND k.device_end_ns IS NOT NULL AND " +
      ctx.filter.activity_condition("k") + ") ORDER BY device, kind, lane");
  ctx.filter.bind(st);
  int64_t named_pid = -1;
  while (st.step()) {
    bool is_copy = st.column_int(0) == 0;
    int64_t device = st.column_int(1), lane = st.column_int(2);
    int64_t pid = is_copy ? copy_pid(device) : compute_pid(device);
    if (pid != named_pid) {
      std::string process =
          (is_copy ? "Memory Copy on " : "Compute on ") + ctx.labels.device + " " + std::to_string(device);
      ctx.writer.process_name(ctx.pid_base + pid, ctx.process_name(process), ctx.pid_base + pid);
      named_pid = pid;
    }
    if (is_copy)
      ctx.writer.thread_name(ctx.pid_base + pid, direction_tid(lane), st.column_text(3), copy_lane_order(lane));
    else
      ctx.writer.thread_name(ctx.pid_base + pid, stream_tid(lane), stream_lane_name(ctx.labels, lane), lane);
  }
}

}  // namespace

void write_copy_process(TimelineContext& ctx) {
  write_api_process_metadata(ctx);
  write_device_metadata(ctx);
  write_marker_lanes(ctx);
  write_api_events(ctx);
  write_marker_events(ctx);
  write_copy_events(ctx, [](int64_t device, int64_t direction, int64_t) {
    return Lane{copy_pid(device), direction_tid(direction)};
  });
  write_kernel_events(ctx, [](int64_t device, int64_t stream_index) {
    return Lane{compute_pid(device), stream_tid(stream_index)};
  });
  write_memory_counters(ctx, copy_pid, [&ctx](int64_t device) {
    return "Memory Copy on " + ctx.labels.device + " " + std::to_string(device);
  });
}

}  // namespace prof::report
