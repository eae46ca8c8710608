// The memory view's counter tracks in a timeline (timeline_events.hpp, write_memory_counters).
#include <set>

#include "report/memory.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

void write_memory_counters(TimelineContext& ctx,
                           const std::function<int64_t(int64_t device)>& device_pid,
                           const std::function<std::string(int64_t device)>& device_process) {
  std::set<int64_t> named;
  read_memory(ctx.db, [&](const MemorySeries& series, int64_t at_ns, int64_t bytes) {
    if (series.kind == MemoryKind::kHost) {
      ctx.writer.counter(ctx.api_pid(), "Pinned host memory in use", at_ns, "bytes", bytes);
      return;
    }
    const int64_t pid = ctx.pid_base + device_pid(series.device);
    if (named.insert(pid).second && !ctx.writer.process_named(pid))
      ctx.writer.process_name(pid, ctx.process_name(device_process(series.device)), pid);
    ctx.writer.counter(
        pid, series.kind == MemoryKind::kManaged ? "Managed memory in use" : "Device memory in use",
        at_ns, "bytes", bytes);
  });
}

}  // namespace prof::report
