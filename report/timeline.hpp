// The two timeline files. Both hold the Runtime API process (pid 1) and flow arrows from each
// call to the work it enqueued; they differ in how device work is laid out (docs/formats.md).
#pragma once
#include "collector/sqlite_db.hpp"
#include "report/report_db.hpp"
#include "report/text_sink.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

// One process's names and events in a timeline (ctx.pid_base and ctx.process_label place it in
// a merged file). The caller owns the writer: begin(), the processes, end().
// <base>_copy.json: per device N, "Memory Copy on Device N" (pid 2+2N, a lane per copy
// direction) and "Compute on Device N" (pid 3+2N, a lane per stream).
void write_copy_process(TimelineContext& ctx);
// <base>_stream.json: per device N, "Stream on Device N" (pid 2+N), a lane per stream holding
// both its copies and its kernels.
void write_stream_process(TimelineContext& ctx);

}  // namespace prof::report
