// The Chrome trace event format (JSON object form), streamed: begin(), one call per event, then
// end(other_data). Loads in chrome://tracing and ui.perfetto.dev. Times are integer nanoseconds
// on input and are written as microseconds with three decimals, so no precision is lost.
//
// A trace too large for a viewer can be split into parts of at most `max_events` events each:
// every part is a complete JSON file that repeats the process and lane names seen so far.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/text_sink.hpp"

namespace prof::report {

// A JSON object built one member at a time, for event "args" and "otherData". Reused per event
// (clear()), so writing a row allocates nothing once the buffer has grown.
class JsonObject {
 public:
  JsonObject& add(std::string_view key, int64_t value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add_null(std::string_view key);
  JsonObject& add_raw(std::string_view key, std::string_view json);  // `json` must already be valid JSON
  std::string text() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }
  void append_to(std::string& out) const;
  bool empty() const { return body_.empty(); }
  void clear() { body_.clear(); }

 private:
  void key(std::string_view name);
  std::string body_;
};

// Appends the decimal digits of `value` (std::to_chars: no locale, no allocation).
void append_int(std::string& out, int64_t value);

class ChromeJsonWriter {
 public:
  // Called when a part is full: returns the sink for the next part.
  using NextPart = std::function<TextSink&()>;

  // `origin_ns` becomes ts 0: every time written is (t - origin_ns).
  ChromeJsonWriter(TextSink& sink, int64_t origin_ns) : sink_(&sink), origin_ns_(origin_ns) {}
  // Splits into parts of at most `max_events` slice/flow events (0: never split).
  ChromeJsonWriter(TextSink& first, int64_t origin_ns, int64_t max_events, NextPart next_part)
      : sink_(&first), origin_ns_(origin_ns), max_events_(max_events), next_part_(std::move(next_part)) {}

  void set_origin(int64_t origin_ns) { origin_ns_ = origin_ns; }
  // otherData of every part; needed before the first event when the trace may be split.
  void set_other_data(const JsonObject& other_data) { other_data_ = other_data.text(); }

  void begin();
  void process_name(int64_t pid, std::string_view name, int64_t sort_index);
  void thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index);
  // Whether process_name(pid, ...) was called.
  bool process_named(int64_t pid) const;
  // A complete ("X") event.
  void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category, int64_t begin_ns,
                int64_t end_ns, const JsonObject& args);
  // A counter ("C") sample: the track `name` of process `pid` holds `value` from `at_ns` on.
  void counter(int64_t pid, std::string_view name, int64_t at_ns, std::string_view series, int64_t value);
  // A flow arrow from the slice that encloses (pid_from, tid_from, from_ns) to the slice that
  // encloses (pid_to, tid_to, to_ns) ("s" then "f" with binding point "e").
  void flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t from_ns, int64_t pid_to, int64_t tid_to,
            int64_t to_ns);
  void end(const JsonObject& other_data);
  void end();

  int64_t events_written() const { return events_written_; }  // slices and flow ends, all parts
  int parts() const { return parts_; }

 private:
  void metadata(const std::string& text);
  void event_line();  // writes line_ as the next event
  void start_part();
  void end_part();
  void make_room(int64_t events);  // opens the next part when `events` more would overflow this one
  void append_time(int64_t ns);

  TextSink* sink_;
  int64_t origin_ns_;
  int64_t max_events_ = 0;
  NextPart next_part_;
  bool first_ = true;
  int64_t events_in_part_ = 0;
  int64_t events_written_ = 0;
  int parts_ = 1;
  std::string line_;
  std::string metadata_;  // every metadata event so far, replayed at the top of each new part
  std::string other_data_ = "{}";
};

}  // namespace prof::report
