// What a timeline is written through: the calls of report/timeline*.cpp, one per name and event,
// in the order the report's pass reads them. Two formats implement it: ChromeJsonWriter (the
// Chrome trace event JSON, <base>_copy.json and <base>_stream.json) and PftraceWriter (Perfetto's
// protobuf trace, <base>.pftrace). Times are integer ns on the host's CLOCK_MONOTONIC.
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace prof::report {

// A JSON object built one member at a time, for event "args" and "otherData". Reused per event
// (clear()), so writing a row allocates nothing once the buffer has grown.
class JsonObject {
 public:
  JsonObject& add(std::string_view key, int64_t value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add_null(std::string_view key);
  JsonObject& add_raw(std::string_view key,
                      std::string_view json);  // `json` must already be valid JSON
  std::string text() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }
  void append_to(std::string& out) const;
  bool empty() const { return body_.empty(); }
  void clear() { body_.clear(); }

 private:
  void key(std::string_view name);
  std::string body_;
};

// Appends the decimal digits of `value` (std::to_chars: no locale, no allocation). Inline: it
// runs several times per event.
inline void append_int(std::string& out, int64_t value) {
  char text[24];
  char* end = std::to_chars(text, text + sizeof text, value).ptr;
  out.append(
      text, static_cast<size_t>(end - text));  // (pointer, length): not the generic iterator append
}

// The slice a flow arrow starts from (the API call), repeated in a later part that holds the
// arrow's end but not the call. Its name and category are JSON strings already (json_string).
struct FlowSource {
  std::string_view name_json;
  std::string_view category_json;
  int64_t begin_ns;
  int64_t end_ns;
};

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  // A process (a viewer's top-level group) and its rows.
  virtual void process_name(int64_t pid, std::string_view name, int64_t sort_index) = 0;
  // A row of process `pid` (a stream, a copy lane, a marker lane, a runtime's lane of a thread).
  virtual void thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) = 0;
  // A row that is the OS thread `tid` itself (its API calls); a format without the distinction
  // writes it as thread_name().
  virtual void os_thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) {
    thread_name(pid, tid, name, sort_index);
  }
  virtual bool process_named(int64_t pid) const = 0;
  virtual void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                        int64_t begin_ns, int64_t end_ns, const JsonObject& args) = 0;
  // complete() with the name and category already JSON strings (json_string: quotes included) and
  // the args a JSON object's text: the timeline's hot path.
  virtual void complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                            std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                            std::string_view args_json) = 0;
  virtual void instant(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                       int64_t at_ns, const JsonObject& args) = 0;
  virtual void async_slice(int64_t pid, int64_t tid, int64_t id, std::string_view name,
                           std::string_view category, int64_t begin_ns, int64_t end_ns,
                           const JsonObject& args) = 0;
  virtual void counter(int64_t pid, std::string_view name, int64_t at_ns, std::string_view series,
                       int64_t value) = 0;
  // An arrow from the call `source` on (pid_from, tid_from) to the kernel or copy just written on
  // (pid_to, tid_to), [to_ns, to_end_ns].
  virtual void flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t pid_to, int64_t tid_to,
                    int64_t to_ns, int64_t to_end_ns, const FlowSource& source) = 0;
};

}  // namespace prof::report
