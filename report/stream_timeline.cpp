#include <set>
#include <utility>

#include "report/marker_timeline.hpp"
#include "report/timeline.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

namespace {

int64_t stream_pid(int64_t device) { return 2 + device; }
// Lane ids start at 1: some viewers treat tid 0 specially.
int64_t stream_tid(int64_t stream_index) { return stream_index + 1; }

void write_device_metadata(TimelineContext& ctx) {
  // (device, stream) of timed copies and kernels, in order.
  const TimelineLanes& timed = ctx.timeline_lanes();
  std::set<std::pair<int64_t, int64_t>> streams = timed.copy_streams();
  streams.insert(timed.kernel_streams().begin(), timed.kernel_streams().end());
  int64_t named_pid = -1;
  for (const auto& [device, stream_index] : streams) {
    int64_t pid = stream_pid(device);
    if (pid != named_pid) {
      std::string name =
          ctx.labels.stream + " on " + ctx.labels.device + " " + std::to_string(device);
      ctx.writer.process_name(ctx.pid_base + pid, ctx.process_name(name), ctx.pid_base + pid);
      named_pid = pid;
    }
    ctx.writer.thread_name(ctx.pid_base + pid, stream_tid(stream_index),
                           stream_lane_name(ctx.labels, stream_index), stream_index);
  }
}

Lane stream_copy_lane(int64_t device, int64_t, int64_t stream_index) {
  return Lane{stream_pid(device), stream_tid(stream_index)};
}
Lane stream_kernel_lane(int64_t device, int64_t stream_index) {
  return Lane{stream_pid(device), stream_tid(stream_index)};
}

}  // namespace

void write_stream_head(TimelineContext& ctx) {
  write_api_process_metadata(ctx);
  write_device_metadata(ctx);
  write_marker_lanes(ctx);
  read_names(ctx);
}

TimelineEventWriter stream_view_events(TimelineContext& ctx) {
  return TimelineEventWriter(ctx, stream_copy_lane, stream_kernel_lane);
}

void write_stream_tail(TimelineContext& ctx) {
  write_marker_events(ctx);
  write_memory_counters(ctx, stream_pid, [&ctx](int64_t device) {
    return ctx.labels.stream + " on " + ctx.labels.device + " " + std::to_string(device);
  });
}

}  // namespace prof::report
