#include "report/chrome_json_writer.hpp"

#include "report/json_escape.hpp"
#include "report/time_format.hpp"

namespace prof::report {

void JsonObject::key(std::string_view name) {
  if (!body_.empty()) body_.push_back(',');
  append_json_string(body_, name);
  body_.push_back(':');
}

JsonObject& JsonObject::add(std::string_view name, int64_t value) {
  key(name);
  body_.append(std::to_string(value));
  return *this;
}

JsonObject& JsonObject::add(std::string_view name, std::string_view value) {
  key(name);
  append_json_string(body_, value);
  return *this;
}

JsonObject& JsonObject::add_null(std::string_view name) {
  key(name);
  body_.append("null");
  return *this;
}

JsonObject& JsonObject::add_raw(std::string_view name, std::string_view json) {
  key(name);
  body_.append(json);
  return *this;
}

void ChromeJsonWriter::begin() { sink_.write("{\"traceEvents\":[\n"); }

// One event per line keeps the files diffable and greppable.
void ChromeJsonWriter::event(const std::string& text) {
  if (!first_) sink_.write(",\n");
  first_ = false;
  sink_.write(text);
}

void ChromeJsonWriter::process_name(int64_t pid, std::string_view name, int64_t sort_index) {
  std::string p = std::to_string(pid);
  event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + p + ",\"tid\":0,\"args\":{\"name\":" +
        json_string(name) + "}}");
  event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + p + ",\"tid\":0,\"args\":{\"sort_index\":" +
        std::to_string(sort_index) + "}}");
}

void ChromeJsonWriter::thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) {
  std::string ids = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  event("{\"ph\":\"M\",\"name\":\"thread_name\"," + ids + ",\"args\":{\"name\":" + json_string(name) + "}}");
  event("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + ids + ",\"args\":{\"sort_index\":" +
        std::to_string(sort_index) + "}}");
}

void ChromeJsonWriter::complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                                int64_t begin_ns, int64_t end_ns, const JsonObject& args) {
  line_.clear();
  line_.append("{\"ph\":\"X\",\"name\":");
  append_json_string(line_, name);
  line_.append(",\"cat\":");
  append_json_string(line_, category);
  line_.append(",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid));
  line_.append(",\"ts\":" + ns_to_us_text(begin_ns - origin_ns_));
  line_.append(",\"dur\":" + ns_to_us_text(end_ns - begin_ns));
  line_.append(",\"args\":" + args.text() + "}");
  event(line_);
}

void ChromeJsonWriter::flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t from_ns, int64_t pid_to,
                            int64_t tid_to, int64_t to_ns) {
  std::string common = "\"cat\":\"flow\",\"name\":\"launch\",\"id\":" + std::to_string(id);
  event("{\"ph\":\"s\"," + common + ",\"pid\":" + std::to_string(pid_from) + ",\"tid\":" + std::to_string(tid_from) +
        ",\"ts\":" + ns_to_us_text(from_ns - origin_ns_) + "}");
  event("{\"ph\":\"f\",\"bp\":\"e\"," + common + ",\"pid\":" + std::to_string(pid_to) +
        ",\"tid\":" + std::to_string(tid_to) + ",\"ts\":" + ns_to_us_text(to_ns - origin_ns_) + "}");
}

void ChromeJsonWriter::end(const JsonObject& other_data) {
  sink_.write("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + other_data.text() + "\n}\n");
}

}  // namespace prof::report
