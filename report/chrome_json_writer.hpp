// The Chrome trace event format (JSON object form), streamed: begin(), one call per event, then
// end(other_data). Loads in ui.perfetto.dev and catapult's trace viewer. Times are integer
// nanoseconds on input and are written as microseconds with three decimals, so no precision is
// lost.
//
// A trace too large for a viewer is split by time into parts (report/timeline_parts.hpp plans
// them): part i holds the events that begin in [starts[i], starts[i+1]). Every part is a complete
// JSON file with every process and lane name, the same otherData, each counter track's value at
// the part's start, and every flow arrow whose device end lies in it, whole: when the arrow's API
// call lies in an earlier part, that call's slice is repeated in this one.
#pragma once
#include <charconv>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "report/text_put.hpp"
#include "report/text_sink.hpp"
#include "report/trace_writer.hpp"

namespace prof::report {

class ChromeJsonWriter final : public TraceWriter {
 public:
  // `origin_ns` becomes ts 0: every time written is (t - origin_ns).
  ChromeJsonWriter(TextSink& sink, int64_t origin_ns)
      : ChromeJsonWriter({&sink}, {INT64_MIN}, origin_ns) {}
  // Part i (sinks[i]) holds the events that begin in [starts[i], starts[i+1]); starts ascend and
  // starts[0] is INT64_MIN.
  ChromeJsonWriter(std::vector<TextSink*> sinks, std::vector<int64_t> starts, int64_t origin_ns);

  void set_origin(int64_t origin_ns) { origin_ns_ = origin_ns; }
  // otherData of every part; needed before the first event when the trace may be split.
  void set_other_data(const JsonObject& other_data) { other_data_ = other_data.text(); }

  void begin();
  void process_name(int64_t pid, std::string_view name, int64_t sort_index) override;
  void thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) override;
  // Whether process_name(pid, ...) was called.
  bool process_named(int64_t pid) const override;
  // A complete ("X") event.
  void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                int64_t begin_ns, int64_t end_ns, const JsonObject& args) override;
  // complete() with the name and category already JSON strings (json_string: quotes included)
  // and `args_json` already a JSON object's text: the timeline's hot path, which escapes nothing
  // and builds each line in place.
  void complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                    std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                    std::string_view args_json) override;
  // An instant ("i", thread scope) event at `at_ns`: a marker.
  void instant(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
               int64_t at_ns, const JsonObject& args) override;
  // An async slice ("b" then "e", one id) from begin_ns to end_ns, both written in the part of
  // begin_ns (as an X slice is): a range that may end on another thread.
  void async_slice(int64_t pid, int64_t tid, int64_t id, std::string_view name,
                   std::string_view category, int64_t begin_ns, int64_t end_ns,
                   const JsonObject& args) override;
  // A counter ("C") sample: the track `name` of process `pid` holds `value` from `at_ns` on.
  void counter(int64_t pid, std::string_view name, int64_t at_ns, std::string_view series,
               int64_t value) override;
  // A flow arrow from the slice `source` on (pid_from, tid_from) to the slice [to_ns, to_end_ns]
  // on (pid_to, tid_to) ("s" then "f" with binding point "e"), written in the part of to_ns. Both
  // ends are stamped at their slice's midpoint: viewers bind an "s" or "f" to the slice that
  // encloses its time, and at a slice's begin that can be the slice before it, which ends at the
  // same ns (back-to-back kernels; a call that returns as the next begins) or is still open in
  // the viewer's order (Perfetto read every arrow from the previous call that way). When the
  // source lies in an earlier part, it is repeated in this part first, once per part and id,
  // with args {"correlation_id", "repeated_from_part"}.
  void flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t pid_to, int64_t tid_to,
            int64_t to_ns, int64_t to_end_ns, const FlowSource& source) override;
  // The time an arrow end is bound at: strictly inside [begin_ns, end_ns] when it is 2 ns or
  // longer.
  static int64_t binding_ns(int64_t begin_ns, int64_t end_ns) {
    return end_ns - begin_ns >= 2 ? begin_ns + (end_ns - begin_ns) / 2 : begin_ns;
  }
  void end(const JsonObject& other_data);
  void end();

  int64_t events_written() const {
    return events_written_;
  }  // slices, samples and flow ends, all parts
  int parts() const { return static_cast<int>(parts_.size()); }
  int64_t part_events(int part) const { return parts_[part].events; }
  // The earliest begin and latest end of the events in a part (both 0 when it is empty).
  std::pair<int64_t, int64_t> part_span(int part) const;

 private:
  struct Part {
    TextSink* sink;
    int64_t start_ns;  // events that begin at or after this (and before the next part's start)
    bool first = true;
    int64_t events = 0;
    int64_t min_ns = INT64_MAX;
    int64_t max_ns = INT64_MIN;
    // Recent ids whose source slice this part repeats, by id modulo kRepeatedMemory (made at the
    // part's first repeat).
    std::vector<int64_t> repeated;
  };
  struct CounterTrack {
    int part;
    int64_t value;
  };
  static constexpr size_t kRepeatedMemory = 4096;
  static constexpr std::string_view kSeparator = ",\n";
  int part_of(int64_t ns) const;
  mutable int last_part_ = 0;  // part_of's last answer
  void metadata(const std::string& text);
  void event_line(Part& part);  // writes line_ as the part's next event
  void start_part(Part& part);
  void end_part(Part& part);
  void event_head(std::string_view ph, std::string_view name, std::string_view category,
                  const int64_t* id, int64_t pid, int64_t tid, int64_t at_ns);
  void slice_line(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                  int64_t begin_ns,
                  int64_t end_ns);  // line_ up to and including ",\"args\":"
  void counter_line(Part& part, int64_t pid, std::string_view name, int64_t at_ns,
                    std::string_view series, int64_t value);
  void count(Part& part, int64_t events, int64_t begin_ns, int64_t end_ns);
  void append_time(int64_t ns);
  void raw_line(Part& part, const char* begin, const char* end);  // as event_line, from raw_
  void slice_raw(Part& part, int64_t pid, int64_t tid, std::string_view name_json,
                 std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                 std::string_view args_json);

  std::vector<Part> parts_;
  int64_t origin_ns_;
  int64_t events_written_ = 0;
  std::string line_;  // the event being written, after kSeparator
  LineBuffer raw_;    // the same for the raw paths (complete_raw, flow): written through a pointer
  std::string metadata_;  // every metadata event so far (process_named looks here)
  std::string other_data_ = "{}";
  // Each counter track's last sample: (pid, name, series) -> its part and value, so a later part
  // starts with the value the track holds at its start.
  std::map<std::tuple<int64_t, std::string, std::string>, CounterTrack> counters_;
};

}  // namespace prof::report
