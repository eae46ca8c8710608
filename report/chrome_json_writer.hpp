// The Chrome trace event format (JSON object form), streamed: begin(), one call per event, then
// end(other_data). Loads in chrome://tracing and ui.perfetto.dev. Times are integer nanoseconds
// on input and are written as microseconds with three decimals, so no precision is lost.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/text_sink.hpp"

namespace prof::report {

// A JSON object built one member at a time, for event "args" and "otherData".
class JsonObject {
 public:
  JsonObject& add(std::string_view key, int64_t value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add_null(std::string_view key);
  JsonObject& add_raw(std::string_view key, std::string_view json);  // `json` must already be valid JSON
  std::string text() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }
  bool empty() const { return body_.empty(); }

 private:
  void key(std::string_view name);
  std::string body_;
};

class ChromeJsonWriter {
 public:
  // `origin_ns` becomes ts 0: every time written is (t - origin_ns).
  ChromeJsonWriter(TextSink& sink, int64_t origin_ns) : sink_(sink), origin_ns_(origin_ns) {}

  void begin();
  void process_name(int64_t pid, std::string_view name, int64_t sort_index);
  void thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index);
  // A complete ("X") event.
  void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category, int64_t begin_ns,
                int64_t end_ns, const JsonObject& args);
  // A flow arrow from the slice that encloses (pid_from, tid_from, from_ns) to the slice that
  // encloses (pid_to, tid_to, to_ns) ("s" then "f" with binding point "e").
  void flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t from_ns, int64_t pid_to, int64_t tid_to,
            int64_t to_ns);
  void end(const JsonObject& other_data);

 private:
  void event(const std::string& text);

  TextSink& sink_;
  int64_t origin_ns_;
  bool first_ = true;
  std::string line_;
};

}  // namespace prof::report
