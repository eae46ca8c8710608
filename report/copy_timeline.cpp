#include <set>
#include <tuple>

#include "report/marker_timeline.hpp"
#include "report/timeline.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

namespace {

int64_t copy_pid(int64_t device) { return 2 + 2 * device; }
int64_t compute_pid(int64_t device) { return 3 + 2 * device; }
// Lane ids start at 1: some viewers treat tid 0 specially.
int64_t stream_tid(int64_t stream_index) { return stream_index + 1; }
// A copy lane per direction and stream: copies of one stream run one after the other, those of two
// streams overlap, and viewers nest partial overlaps on one row wrongly. Directions are few (< 16).
constexpr int64_t kDirections = 16;
int64_t copy_tid(int64_t direction, int64_t stream_index) {
  return stream_tid(stream_index) * kDirections +
         (direction >= 0 && direction < kDirections ? direction : kDirections - 1);
}

// Processes and lanes are named before any slice, in pid order; only lanes with timed work exist.
void write_device_metadata(TimelineContext& ctx) {
  // (device, kind, lane): copies (kind 0) by direction, then kernels (kind 1) by stream.
  std::set<std::tuple<int64_t, int64_t, int64_t>> lanes;
  const TimelineLanes& timed = ctx.timeline_lanes();
  for (const auto& [device, direction, stream] : timed.copy_lanes())
    lanes.emplace(device, 0, copy_tid(direction, stream));
  for (const auto& [device, stream] : timed.kernel_streams()) lanes.emplace(device, 1, stream);
  int64_t named_pid = -1;
  for (const auto& [device, kind, lane] : lanes) {
    const bool is_copy = kind == 0;
    int64_t pid = is_copy ? copy_pid(device) : compute_pid(device);
    if (pid != named_pid) {
      std::string process = (is_copy ? "Memory Copy on " : "Compute on ") + ctx.labels.device +
                            " " + std::to_string(device);
      ctx.writer.process_name(ctx.pid_base + pid, ctx.process_name(process), ctx.pid_base + pid);
      named_pid = pid;
    }
    if (is_copy) {
      const int64_t direction = lane % kDirections, stream = lane / kDirections - 1;
      ctx.writer.thread_name(
          ctx.pid_base + pid, lane,
          ctx.direction_name(direction) + " (" + stream_lane_name(ctx.labels, stream) + ")",
          copy_lane_order(direction) * (1 << 20) + stream);
    } else
      ctx.writer.thread_name(ctx.pid_base + pid, stream_tid(lane),
                             stream_lane_name(ctx.labels, lane), lane);
  }
}

Lane copy_lane(int64_t device, int64_t direction, int64_t stream_index) {
  return Lane{copy_pid(device), copy_tid(direction, stream_index)};
}
Lane kernel_lane(int64_t device, int64_t stream_index) {
  return Lane{compute_pid(device), stream_tid(stream_index)};
}

}  // namespace

void write_copy_head(TimelineContext& ctx) {
  write_api_process_metadata(ctx);
  write_device_metadata(ctx);
  write_marker_lanes(ctx);
  read_names(ctx);
}

TimelineEventWriter copy_view_events(TimelineContext& ctx) {
  return TimelineEventWriter(ctx, copy_lane, kernel_lane);
}

void write_copy_tail(TimelineContext& ctx) {
  write_marker_events(ctx);
  write_memory_counters(ctx, copy_pid, [&ctx](int64_t device) {
    return "Memory Copy on " + ctx.labels.device + " " + std::to_string(device);
  });
}

}  // namespace prof::report
