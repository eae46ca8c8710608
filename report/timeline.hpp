// The two timeline files. Both hold the Runtime API process (pid 1) and flow arrows from each
// call to the work it enqueued; they differ in how device work is laid out (docs/formats.md).
#pragma once
#include "collector/sqlite_db.hpp"
#include "report/report_db.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

// <base>_copy.json: per device N, "Memory Copy on Device N" (pid 2+2N, a lane per copy
// direction) and "Compute on Device N" (pid 3+2N, a lane per stream).
void write_copy_timeline(Database& db, const RowFilter& filter, TextSink& sink);

// <base>_stream.json: per device N, "Stream on Device N" (pid 2+N), a lane per stream holding
// its copies and kernels.
void write_stream_timeline(Database& db, const RowFilter& filter, TextSink& sink);

}  // namespace prof::report
