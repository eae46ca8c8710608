// The simulated libroctx64.so.4 (roctx, AMD's marker API): what a program that links roctx needs to
// run under `prof --sim`, with roctracer's semantics: roctxRangePushA returns the nesting level
// (0-based, per thread), roctxRangePop the level it popped or -1 when nothing is open,
// roctxRangeStartA a process-wide unique id (from 1). Marks and stops do nothing a program sees.
// No device model: markers touch no device.
#include <atomic>

// The definitions inherit default visibility from the table's declarations (the rest is hidden),
// and must match them.
#pragma GCC visibility push(default)
#include "runtimes/roctx/roctx_runtime_decls.hpp"
#pragma GCC visibility pop

namespace {
thread_local int t_level = 0;
std::atomic<roctx_range_id_t> g_last_id{0};
}  // namespace

void roctxMarkA(const char*) {}
int roctxRangePushA(const char*) { return t_level++; }
int roctxRangePop(void) { return t_level == 0 ? -1 : --t_level; }
roctx_range_id_t roctxRangeStartA(const char*) {
  return g_last_id.fetch_add(1, std::memory_order_relaxed) + 1;
}
void roctxRangeStop(roctx_range_id_t) {}
// rocprofiler-sdk's profiler requests: nothing to pause here; 0 is "done".
int roctxProfilerPause(roctx_thread_id_t) { return 0; }
int roctxProfilerResume(roctx_thread_id_t) { return 0; }
