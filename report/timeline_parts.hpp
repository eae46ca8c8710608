// How a timeline is split by time so every part opens in a trace viewer (docs/formats.md, "Parts").
// A browser tab parses a whole JSON trace in memory: ui.perfetto.dev and chrome://tracing open
// traces of a few hundred MB at most. prof keeps each part under an event and a byte budget.
#pragma once
#include <cstdint>
#include <vector>

#include "collector/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"

namespace prof::report {

// The default budget of one timeline file (--json-max-events changes the event count).
inline constexpr int64_t kDefaultPartEvents = 500'000;
inline constexpr int64_t kPartMaxBytes = 128ll << 20;

// The start times of the parts (ascending, the first INT64_MIN): {INT64_MIN} when the whole
// timeline fits one part. A part holds the events that begin in [start_i, start_i+1): API calls
// by begin, kernels and copies (with their arrows) by device begin, counter samples by time. Each
// part's events and estimated bytes stay within the budget unless one nanosecond alone exceeds
// it. `extents` (one per process, from the report's pass over the events) settle small timelines;
// a large one costs one more pass over event times (or a few, when a bin alone overflows); memory
// is a fixed-size histogram.
std::vector<int64_t> plan_timeline_parts(Database& db, const RowFilter& filter,
                                         const std::vector<SourceProcess>& processes,
                                         const std::vector<EventExtents>& extents, int64_t max_events,
                                         int64_t max_bytes);

}  // namespace prof::report
