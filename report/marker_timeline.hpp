// The timeline's marker pieces, shared by both views (_copy.json and _stream.json), written after
// the Runtime API lanes: a "Markers and Ranges (Thread N)" lane per thread in the Runtime API
// process, and a "Capture" lane with one slice per capture window. Nothing when the db has neither.
#pragma once
#include "report/timeline_events.hpp"

namespace prof::report {

// The lanes' names (metadata comes before every event): a markers lane per thread that has markers,
// and the Capture lane when the db has capture windows.
void write_marker_lanes(TimelineContext& ctx);
// The capture windows (write_capture_windows), then the markers. Push/pop ranges as nested X slices
// on the pushing thread's markers lane; start/stop ranges as async slices (b/e, id = marker_id)
// begun on the starting thread's lane, ended wherever they end; marks as instants ("i"). Args:
// message, source, level or range_id, end_thread, and open_at_exit 1 for a range the program never
// ended (closed at the process's end).
void write_marker_events(TimelineContext& ctx);
// One X slice per capture window (args: started_by, stopped_by), on the "Capture" lane.
void write_capture_windows(TimelineContext& ctx);

}  // namespace prof::report
