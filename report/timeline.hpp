// The two timeline files. Both hold the Runtime API process (pid 1) and flow arrows from each
// call to the work it enqueued; they differ in how device work is laid out (docs/formats.md).
#pragma once
#include "db/sqlite_db.hpp"
#include "report/report_db.hpp"
#include "report/text_sink.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

// One process's part of a timeline view (ctx.pid_base and ctx.process_label place it in a merged
// file). The caller owns the writer (begin(), the processes, end()) and, per process, writes the
// head (process and lane names; after it ctx needs the db only for kernel names), feeds the pass
// over the process's events (report/event_pass.hpp) to the view's TimelineEventWriter, then
// writes the tail (marks and ranges, memory counters).
// <base>_copy.json: per device N, "Memory Copy on Device N" (pid 2+2N, a lane per copy
// direction) and "Compute on Device N" (pid 3+2N, a lane per stream).
void write_copy_head(TimelineContext& ctx);
TimelineEventWriter copy_view_events(TimelineContext& ctx);
void write_copy_tail(TimelineContext& ctx);
// <base>_stream.json: per device N, "Stream on Device N" (pid 2+N), a lane per stream holding
// both its copies and its kernels.
void write_stream_head(TimelineContext& ctx);
TimelineEventWriter stream_view_events(TimelineContext& ctx);
void write_stream_tail(TimelineContext& ctx);

}  // namespace prof::report
