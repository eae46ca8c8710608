#include "report/chrome_json_writer.hpp"

#include <charconv>

#include "report/json_escape.hpp"

namespace prof::report {

void append_int(std::string& out, int64_t value) {
  char text[24];
  char* end = std::to_chars(text, text + sizeof text, value).ptr;
  out.append(text, end);
}

void JsonObject::key(std::string_view name) {
  if (!body_.empty()) body_.push_back(',');
  append_json_string(body_, name);
  body_.push_back(':');
}

JsonObject& JsonObject::add(std::string_view name, int64_t value) {
  key(name);
  append_int(body_, value);
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

void JsonObject::append_to(std::string& out) const {
  out.push_back('{');
  out.append(body_);
  out.push_back('}');
}

void ChromeJsonWriter::begin() { start_part(); }

void ChromeJsonWriter::start_part() {
  sink_->write("{\"traceEvents\":[\n");
  first_ = true;
  events_in_part_ = 0;
  if (!metadata_.empty()) {
    sink_->write(metadata_);
    first_ = false;
  }
}

void ChromeJsonWriter::end_part() { sink_->write("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + other_data_ + "\n}\n"); }

void ChromeJsonWriter::make_room(int64_t events) {
  if (max_events_ <= 0 || !next_part_ || events_in_part_ == 0 || events_in_part_ + events <= max_events_) return;
  end_part();
  sink_ = &next_part_();
  ++parts_;
  start_part();
}

// One event per line keeps the files diffable and greppable.
void ChromeJsonWriter::event_line() {
  if (!first_) sink_->write(",\n");
  first_ = false;
  sink_->write(line_);
}

void ChromeJsonWriter::metadata(const std::string& text) {
  if (!metadata_.empty()) metadata_.append(",\n");
  metadata_.append(text);
  line_ = text;
  event_line();
}

void ChromeJsonWriter::append_time(int64_t ns) {
  // Microseconds with three decimals from integer ns, as time_format's ns_to_us_text, without
  // allocating: this runs twice per event.
  uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) line_.push_back('-');
  char text[24];
  char* end = std::to_chars(text, text + sizeof text, magnitude / 1000).ptr;
  unsigned frac = static_cast<unsigned>(magnitude % 1000);
  *end++ = '.';
  *end++ = static_cast<char>('0' + frac / 100);
  *end++ = static_cast<char>('0' + frac / 10 % 10);
  *end++ = static_cast<char>('0' + frac % 10);
  line_.append(text, end);
}

bool ChromeJsonWriter::process_named(int64_t pid) const {
  std::string key = "\"name\":\"process_name\",\"pid\":";
  append_int(key, pid);
  key += ',';
  return metadata_.find(key) != std::string::npos;
}

void ChromeJsonWriter::process_name(int64_t pid, std::string_view name, int64_t sort_index) {
  std::string text = "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
  append_int(text, pid);
  text += ",\"tid\":0,\"args\":{\"name\":" + json_string(name) + "}}";
  metadata(text);
  text = "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
  append_int(text, pid);
  text += ",\"tid\":0,\"args\":{\"sort_index\":";
  append_int(text, sort_index);
  text += "}}";
  metadata(text);
}

void ChromeJsonWriter::thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) {
  std::string ids = "\"pid\":";
  append_int(ids, pid);
  ids += ",\"tid\":";
  append_int(ids, tid);
  metadata("{\"ph\":\"M\",\"name\":\"thread_name\"," + ids + ",\"args\":{\"name\":" + json_string(name) + "}}");
  std::string sort = "{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + ids + ",\"args\":{\"sort_index\":";
  append_int(sort, sort_index);
  metadata(sort + "}}");
}

void ChromeJsonWriter::complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                                int64_t begin_ns, int64_t end_ns, const JsonObject& args) {
  make_room(1);
  line_.clear();
  line_.append("{\"ph\":\"X\",\"name\":");
  append_json_string(line_, name);
  line_.append(",\"cat\":");
  append_json_string(line_, category);
  line_.append(",\"pid\":");
  append_int(line_, pid);
  line_.append(",\"tid\":");
  append_int(line_, tid);
  line_.append(",\"ts\":");
  append_time(begin_ns - origin_ns_);
  line_.append(",\"dur\":");
  append_time(end_ns - begin_ns);
  line_.append(",\"args\":");
  args.append_to(line_);
  line_.push_back('}');
  event_line();
  ++events_in_part_;
  ++events_written_;
}

void ChromeJsonWriter::counter(int64_t pid, std::string_view name, int64_t at_ns, std::string_view series,
                               int64_t value) {
  make_room(1);
  line_.clear();
  line_.append("{\"ph\":\"C\",\"name\":");
  append_json_string(line_, name);
  line_.append(",\"pid\":");
  append_int(line_, pid);
  line_.append(",\"tid\":0,\"ts\":");
  append_time(at_ns - origin_ns_);
  line_.append(",\"args\":{");
  append_json_string(line_, series);
  line_.push_back(':');
  append_int(line_, value);
  line_.append("}}");
  event_line();
  ++events_in_part_;
  ++events_written_;
}

void ChromeJsonWriter::flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t from_ns, int64_t pid_to,
                            int64_t tid_to, int64_t to_ns) {
  make_room(2);  // both ends in one part, or a viewer draws half an arrow
  for (int end = 0; end < 2; ++end) {
    line_.clear();
    line_.append(end == 0 ? "{\"ph\":\"s\"," : "{\"ph\":\"f\",\"bp\":\"e\",");
    line_.append("\"cat\":\"flow\",\"name\":\"launch\",\"id\":");
    append_int(line_, id);
    line_.append(",\"pid\":");
    append_int(line_, end == 0 ? pid_from : pid_to);
    line_.append(",\"tid\":");
    append_int(line_, end == 0 ? tid_from : tid_to);
    line_.append(",\"ts\":");
    append_time((end == 0 ? from_ns : to_ns) - origin_ns_);
    line_.push_back('}');
    event_line();
  }
  events_in_part_ += 2;
  events_written_ += 2;
}

void ChromeJsonWriter::end(const JsonObject& other_data) {
  set_other_data(other_data);
  end();
}

void ChromeJsonWriter::end() { end_part(); }

}  // namespace prof::report
