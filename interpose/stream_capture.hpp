// Whether any stream may be capturing into a graph, known from the hooks of the capture calls, so
// that device timing asks the runtime (hipStreamIsCapturing) before a launch only while a capture
// may be active, not before every launch. Runtime-neutral: each runtime's adapter names its
// begin and end calls (kCaptureBegin, kCaptureEnd) and which end results end the capture.
//
// Conservative by construction: a capture counts from just before its begin call until an end
// call that certainly ended it (success, or the runtime's "invalidated" answer, which also ends
// it); any other outcome leaves it counted. A runtime whose capture calls prof does not all hook
// (CNRT's table has none; a HIP or MUSA library of a later version, which exports a begin variant
// the table lacks, such as hipStreamBeginCapture_spt) is always asked, as is every runtime once the
// count has gone wrong (an end without a begin). Counting too much only costs the query.
#pragma once
#include <atomic>

#include "interpose/timing_adapter.hpp"

namespace prof::interpose {

// Captures that may be active in the process, all runtimes together.
extern std::atomic<int> g_stream_captures;

// The hooks of begin calls: before the real call, then after it if it failed.
void stream_capture_begin() noexcept;
void stream_capture_begin_failed() noexcept;
// The hooks of end calls, after the real call, when its result says the capture ended.
void stream_capture_ended() noexcept;

// Whether the runtime's capture begin calls all pass through prof's hooks (asked once per runtime:
// the library's exports are looked up the first time).
bool stream_capture_tracked(const TimingAdapter& rt) noexcept;

// Whether device timing must ask the runtime whether a stream is capturing. One relaxed load while
// no capture is active: a capture begun on another thread is seen here once the program has
// ordered its own use of the stream after that begin call (the increment precedes it).
inline bool stream_capture_possible(const TimingAdapter& rt) noexcept {
  return g_stream_captures.load(std::memory_order_relaxed) != 0 || !stream_capture_tracked(rt);
}

}  // namespace prof::interpose
