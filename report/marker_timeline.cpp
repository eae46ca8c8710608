#include "report/marker_timeline.hpp"

#include "report/range_stats.hpp"

namespace prof::report {

namespace {

// Above every thread id (and every runtime's lane, TimelineContext::kRuntimeLaneStride apart).
constexpr int64_t kMarkerLaneStride = 900'000'000;
constexpr int64_t kCaptureLaneTid = 1'999'999'999;

int64_t marker_lane(int64_t thread_id) { return thread_id + kMarkerLaneStride; }

// With --index-range, the markers that lie in the covered calls' time span.
std::string span_condition(const RowFilter& filter) {
  if (!filter.sequence_range) return "1";
  return "m.begin_ns <= (SELECT MAX(c.end_ns) FROM api_calls c WHERE " + filter.api_condition("c") +
         ") AND m.end_ns >= (SELECT MIN(c.begin_ns) FROM api_calls c WHERE " +
         filter.api_condition("c") + ")";
}

}  // namespace

void write_marker_lanes(TimelineContext& ctx) {
  if (has_capture_windows(ctx.db))
    ctx.writer.thread_name(ctx.api_pid(), kCaptureLaneTid, "Capture", -1);
  if (!has_markers(ctx.db)) return;
  {
    // In thread order.
    Statement st = ctx.db.prepare(
        "SELECT DISTINCT m.thread_id, COALESCE(t.thread_index, m.thread_id) AS thread_order FROM "
        "markers m"
        " LEFT JOIN threads t ON t.thread_id = m.thread_id ORDER BY thread_order, m.thread_id");
    while (st.step()) {
      const int64_t tid = st.column_int(0);
      ctx.writer.thread_name(ctx.api_pid(), marker_lane(tid),
                             "Markers and Ranges (Thread " + std::to_string(tid) + ")",
                             st.column_int(1));
    }
  }
}

void write_marker_events(TimelineContext& ctx) {
  write_capture_windows(ctx);
  if (!has_markers(ctx.db)) return;
  Statement st = ctx.db.prepare(
      "SELECT m.marker_id, m.kind, m.message, m.source, m.thread_id, m.begin_ns, m.end_ns, "
      "m.level, m.range_id,"
      " m.end_thread_id, m.open_at_exit FROM markers m WHERE m.end_ns IS NOT NULL AND " +
      span_condition(ctx.filter) + " ORDER BY m.begin_ns, m.marker_id");
  ctx.filter.bind(st);
  JsonObject& args = ctx.args;
  const int64_t pid = ctx.api_pid();
  while (st.step()) {
    const std::string_view kind = st.column_text(1), message = st.column_text(2);
    const int64_t lane = marker_lane(st.column_int(4)), begin_ns = st.column_int(5),
                  end_ns = st.column_int(6);
    args.clear();
    args.add("message", message).add("source", st.column_text(3));
    if (!st.column_is_null(7)) args.add("level", st.column_int(7));
    if (!st.column_is_null(8)) args.add("range_id", st.column_int(8));
    if (!st.column_is_null(9) && kind != "mark") args.add("end_thread", st.column_int(9));
    if (st.column_int(10) != 0) args.add("open_at_exit", int64_t{1});
    if (kind == "mark")
      ctx.writer.instant(pid, lane, message, "marker", begin_ns, args);
    else if (kind == "push_pop")
      ctx.writer.complete(pid, lane, message, "range", begin_ns, end_ns, args);
    else
      ctx.writer.async_slice(pid, lane, st.column_int(0), message, "range", begin_ns, end_ns, args);
  }
}

void write_capture_windows(TimelineContext& ctx) {
  if (!has_capture_windows(ctx.db)) return;
  Statement st = ctx.db.prepare(
      "SELECT window_index, begin_ns, end_ns, started_by, stopped_by FROM capture_windows ORDER BY "
      "begin_ns");
  JsonObject& args = ctx.args;
  while (st.step()) {
    args.clear();
    args.add("window", st.column_int(0) + 1)
        .add("started_by", st.column_text(3))
        .add("stopped_by", st.column_text(4));
    ctx.writer.complete(ctx.api_pid(), kCaptureLaneTid,
                        "capture window " + std::to_string(st.column_int(0) + 1), "capture",
                        st.column_int(1), st.column_int(2), args);
  }
}

}  // namespace prof::report
