#include "report/chrome_json_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "report/json_escape.hpp"
#include "report/text_put.hpp"

namespace prof::report {

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

ChromeJsonWriter::ChromeJsonWriter(std::vector<TextSink*> sinks, std::vector<int64_t> starts,
                                   int64_t origin_ns)
    : origin_ns_(origin_ns) {
  parts_.reserve(sinks.size());
  for (size_t i = 0; i < sinks.size(); ++i)
    parts_.push_back(Part{sinks[i], i < starts.size() ? starts[i] : INT64_MAX});
  if (!parts_.empty()) parts_.front().start_ns = INT64_MIN;
}

int ChromeJsonWriter::part_of(int64_t ns) const {
  // Events come nearly in time order: most are in the part of the one before.
  const size_t last = static_cast<size_t>(last_part_);
  if (ns >= parts_[last].start_ns && (last + 1 == parts_.size() || ns < parts_[last + 1].start_ns))
    return last_part_;
  // The last part whose start is at or before ns.
  auto it = std::upper_bound(parts_.begin(), parts_.end(), ns,
                             [](int64_t t, const Part& p) { return t < p.start_ns; });
  last_part_ = it == parts_.begin() ? 0 : static_cast<int>(it - parts_.begin()) - 1;
  return last_part_;
}

std::pair<int64_t, int64_t> ChromeJsonWriter::part_span(int part) const {
  const Part& p = parts_[part];
  if (p.min_ns > p.max_ns) return {0, 0};
  return {p.min_ns, p.max_ns};
}

void ChromeJsonWriter::begin() {
  for (Part& part : parts_) start_part(part);
}

void ChromeJsonWriter::start_part(Part& part) {
  part.sink->write("{\"traceEvents\":[\n");
  part.first = true;
}

void ChromeJsonWriter::end_part(Part& part) {
  // ts and dur are microseconds in every viewer. displayTimeUnit "ns" is there for catapult: it
  // nests the slices of a row at the precision of that unit, and at its default (1 us) it draws a
  // call that begins and ends within the microsecond another one ended in inside that one, and
  // drops its arrow. Current Perfetto ignores the key (its json_display_time_unit stat); Perfetto
  // up to v20 read it as the unit of ts and showed every time 1000x too short, but matches keys on
  // their raw text, so the key is written with one escaped letter ("\u0054" is "T"), which every
  // JSON parser, catapult's included, reads as displayTimeUnit. Last in the file, where a parser
  // that honoured it early could not apply it to any event.
  part.sink->write("\n],\n\"otherData\":" + other_data_ +
                   ",\n\"display\\u0054imeUnit\":\"ns\"\n}\n");
}

// One event per line keeps the files diffable and greppable.
// line_ starts with the separator ",\n" (kSeparator), left out before a part's first event: one
// write per event.
void ChromeJsonWriter::event_line(Part& part) {
  std::string_view text = line_;
  if (part.first) text.remove_prefix(kSeparator.size());
  part.first = false;
  part.sink->write(text);
}

void ChromeJsonWriter::count(Part& part, int64_t events, int64_t begin_ns, int64_t end_ns) {
  part.events += events;
  events_written_ += events;
  part.min_ns = std::min(part.min_ns, begin_ns);
  part.max_ns = std::max(part.max_ns, end_ns);
}

// Names go to every part: a part is a complete trace on its own.
void ChromeJsonWriter::metadata(const std::string& text) {
  if (!metadata_.empty()) metadata_.append(",\n");
  metadata_.append(text);
  line_.assign(kSeparator).append(text);
  for (Part& part : parts_) event_line(part);
}

namespace {

// Perfetto turns a JSON ts or dur into ns as (int64)(value * 1000.0), truncating. For about one
// value in fourteen the double nearest to the three-decimal text times 1000 lands just under the
// integer, and the slice would begin 1 ns early or last 1 ns less. Such a value gets the smallest
// nudge up, 0.1 ps to 0.1 ns (7 to 4 decimals ending in 1), whose double survives the truncation;
// catapult rounds to the ns and reads the same time. (double)num / 10^e is the correctly rounded
// value of the text, as a JSON parser reads it.
inline bool reads_back(uint64_t magnitude, uint64_t num, double den) {
  return static_cast<uint64_t>(static_cast<double>(num) / den * 1000.0) == magnitude;
}

// Microseconds from integer ns, three decimals (more for the values above), without allocating:
// this runs twice per event.
inline char* put_time(char* p, int64_t ns) {
  uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) *p++ = '-';
  constexpr uint64_t kExact = uint64_t{1} << 53;  // integers a double holds exactly
  uint64_t num = magnitude;
  int decimals = 3;
  if (magnitude < kExact && !reads_back(magnitude, magnitude, 1e3)) {
    static constexpr double kDen[] = {1e3, 1e4, 1e5, 1e6, 1e7};
    for (int e = 7; e >= 4; --e) {
      uint64_t scale = 1;
      for (int i = 3; i < e; ++i) scale *= 10;
      if (magnitude >= (kExact - 1) / scale) continue;
      if (reads_back(magnitude, magnitude * scale + 1, kDen[e - 3])) {
        num = magnitude * scale + 1;
        decimals = e;
        break;
      }
    }
  }
  uint64_t unit = 1;
  for (int i = 0; i < decimals; ++i) unit *= 10;
  p = std::to_chars(p, p + 24, num / unit).ptr;
  *p++ = '.';
  uint64_t frac = num % unit;
  for (int i = decimals - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  return p + decimals;
}
// The longest text of a time (put_time: 1 + 20 + 1 + 7).
constexpr size_t kTimeChars = 29;

}  // namespace

void ChromeJsonWriter::append_time(int64_t ns) {
  char text[kTimeChars];
  line_.append(text, static_cast<size_t>(put_time(text, ns) - text));
}

void ChromeJsonWriter::raw_line(Part& part, const char* begin, const char* end) {
  if (part.first) begin += kSeparator.size();
  part.first = false;
  part.sink->write(std::string_view(begin, static_cast<size_t>(end - begin)));
}

void ChromeJsonWriter::complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                                    std::string_view category_json, int64_t begin_ns,
                                    int64_t end_ns, std::string_view args_json) {
  slice_raw(parts_[part_of(begin_ns)], pid, tid, name_json, category_json, begin_ns, end_ns,
            args_json);
}

void ChromeJsonWriter::slice_raw(Part& part, int64_t pid, int64_t tid, std::string_view name_json,
                                 std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                                 std::string_view args_json) {
  static constexpr std::string_view kHead = ",\n{\"ph\":\"X\",\"name\":", kCat = ",\"cat\":",
                                    kPid = ",\"pid\":", kTid = ",\"tid\":", kTs = ",\"ts\":",
                                    kDur = ",\"dur\":", kArgs = ",\"args\":";
  char* const line =
      raw_.at_least(kHead.size() + name_json.size() + kCat.size() + category_json.size() +
                    kPid.size() + kTid.size() + kTs.size() + kDur.size() + kArgs.size() +
                    args_json.size() + 1 + 2 * kIntChars + 2 * kTimeChars);
  char* p = put(line, kHead);
  p = put(p, name_json);
  p = put(p, kCat);
  p = put(p, category_json);
  p = put(p, kPid);
  p = put_int(p, pid);
  p = put(p, kTid);
  p = put_int(p, tid);
  p = put(p, kTs);
  p = put_time(p, begin_ns - origin_ns_);
  p = put(p, kDur);
  p = put_time(p, end_ns - begin_ns);
  p = put(p, kArgs);
  p = put(p, args_json);
  *p++ = '}';
  raw_line(part, line, p);
  count(part, 1, begin_ns, end_ns);
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

void ChromeJsonWriter::thread_name(int64_t pid, int64_t tid, std::string_view name,
                                   int64_t sort_index) {
  std::string ids = "\"pid\":";
  append_int(ids, pid);
  ids += ",\"tid\":";
  append_int(ids, tid);
  metadata("{\"ph\":\"M\",\"name\":\"thread_name\"," + ids +
           ",\"args\":{\"name\":" + json_string(name) + "}}");
  std::string sort =
      "{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + ids + ",\"args\":{\"sort_index\":";
  append_int(sort, sort_index);
  metadata(sort + "}}");
}

// line_ = {"ph":<ph>,"name":..,"cat":..[,"id":..],"pid":..,"tid":..,"ts":.. (the caller closes it).
void ChromeJsonWriter::event_head(std::string_view ph, std::string_view name,
                                  std::string_view category, const int64_t* id, int64_t pid,
                                  int64_t tid, int64_t at_ns) {
  line_.assign(kSeparator);
  line_.append("{\"ph\":");
  line_.append(ph);
  line_.append(",\"name\":");
  append_json_string(line_, name);
  line_.append(",\"cat\":");
  append_json_string(line_, category);
  if (id) {
    line_.append(",\"id\":");
    append_int(line_, *id);
  }
  line_.append(",\"pid\":");
  append_int(line_, pid);
  line_.append(",\"tid\":");
  append_int(line_, tid);
  line_.append(",\"ts\":");
  append_time(at_ns - origin_ns_);
}

void ChromeJsonWriter::slice_line(int64_t pid, int64_t tid, std::string_view name,
                                  std::string_view category, int64_t begin_ns, int64_t end_ns) {
  event_head("\"X\"", name, category, nullptr, pid, tid, begin_ns);
  line_.append(",\"dur\":");
  append_time(end_ns - begin_ns);
  line_.append(",\"args\":");
}

void ChromeJsonWriter::complete(int64_t pid, int64_t tid, std::string_view name,
                                std::string_view category, int64_t begin_ns, int64_t end_ns,
                                const JsonObject& args) {
  Part& part = parts_[part_of(begin_ns)];
  slice_line(pid, tid, name, category, begin_ns, end_ns);
  args.append_to(line_);
  line_.push_back('}');
  event_line(part);
  count(part, 1, begin_ns, end_ns);
}

void ChromeJsonWriter::instant(int64_t pid, int64_t tid, std::string_view name,
                               std::string_view category, int64_t at_ns, const JsonObject& args) {
  Part& part = parts_[part_of(at_ns)];
  event_head("\"i\",\"s\":\"t\"", name, category, nullptr, pid, tid, at_ns);
  line_.append(",\"args\":");
  args.append_to(line_);
  line_.push_back('}');
  event_line(part);
  count(part, 1, at_ns, at_ns);
}

void ChromeJsonWriter::async_slice(int64_t pid, int64_t tid, int64_t id, std::string_view name,
                                   std::string_view category, int64_t begin_ns, int64_t end_ns,
                                   const JsonObject& args) {
  Part& part = parts_[part_of(begin_ns)];
  for (int end = 0; end < 2; ++end) {
    event_head(end == 0 ? "\"b\"" : "\"e\"", name, category, &id, pid, tid,
               end == 0 ? begin_ns : end_ns);
    if (end == 0) {
      line_.append(",\"args\":");
      args.append_to(line_);
    }
    line_.push_back('}');
    event_line(part);
  }
  count(part, 2, begin_ns, end_ns);
}

void ChromeJsonWriter::counter_line(Part& part, int64_t pid, std::string_view name, int64_t at_ns,
                                    std::string_view series, int64_t value) {
  line_.assign(kSeparator);
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
  event_line(part);
  count(part, 1, at_ns, at_ns);
}

void ChromeJsonWriter::counter(int64_t pid, std::string_view name, int64_t at_ns,
                               std::string_view series, int64_t value) {
  int index = part_of(at_ns);
  if (parts_.size() > 1) {
    auto key = std::make_tuple(pid, std::string(name), std::string(series));
    auto [it, added] = counters_.try_emplace(std::move(key), CounterTrack{index, value});
    if (!added) {
      // The parts between the last sample and this one start with the value the track held.
      for (int p = it->second.part + 1; p <= index; ++p)
        counter_line(parts_[p], pid, name, parts_[p].start_ns, series, it->second.value);
      it->second = CounterTrack{index, value};
    }
  }
  counter_line(parts_[index], pid, name, at_ns, series, value);
}

void ChromeJsonWriter::flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t pid_to,
                            int64_t tid_to, int64_t to_ns, int64_t to_end_ns,
                            const FlowSource& source) {
  int index = part_of(to_ns);
  Part& part = parts_[index];
  int from_part = part_of(source.begin_ns);
  const int64_t to_at = binding_ns(to_ns, to_end_ns);
  // The arrow starts no later than it ends: both viewers sort flow events by time, and catapult
  // drops a flow whose end comes first ("flow phase f ... but no flow start found"), Perfetto too.
  // Device times stamped by the device put short work inside its call, before the call's middle.
  int64_t from_at = binding_ns(source.begin_ns, source.end_ns);
  if (to_at <= from_at && to_at - 1 > source.begin_ns) from_at = to_at - 1;
  if (from_part != index) {
    // Several device slices of one call share its id and come one after the other: remembering
    // the recent ids is enough, and keeps memory flat.
    if (part.repeated.empty()) part.repeated.assign(kRepeatedMemory, INT64_MIN);
    int64_t& seen = part.repeated[static_cast<uint64_t>(id) % kRepeatedMemory];
    if (seen != id) {
      seen = id;
      // The call lies in an earlier part: repeat its slice here, or this part draws half an arrow.
      static constexpr std::string_view kId = "{\"correlation_id\":",
                                        kFrom = ",\"repeated_from_part\":";
      char args[kId.size() + kFrom.size() + 2 * kIntChars + 1];
      char* p = put(args, kId);
      p = put_int(p, id);
      p = put(p, kFrom);
      p = put_int(p, from_part + 1);
      *p++ = '}';
      slice_raw(part, pid_from, tid_from, source.name_json, source.category_json, source.begin_ns,
                source.end_ns, std::string_view(args, static_cast<size_t>(p - args)));
    }
  }
  static constexpr std::string_view kStart = ",\n{\"ph\":\"s\",",
                                    kFinish = ",\n{\"ph\":\"f\",\"bp\":\"e\",",
                                    kId = "\"cat\":\"flow\",\"name\":\"launch\",\"id\":",
                                    kPid = ",\"pid\":", kTid = ",\"tid\":", kTs = ",\"ts\":";
  char* const line = raw_.at_least(kFinish.size() + kId.size() + kPid.size() + kTid.size() +
                                   kTs.size() + 1 + 3 * kIntChars + kTimeChars);
  for (int end = 0; end < 2; ++end) {
    char* p = put(line, end == 0 ? kStart : kFinish);
    p = put(p, kId);
    p = put_int(p, id);
    p = put(p, kPid);
    p = put_int(p, end == 0 ? pid_from : pid_to);
    p = put(p, kTid);
    p = put_int(p, end == 0 ? tid_from : tid_to);
    p = put(p, kTs);
    p = put_time(p, (end == 0 ? from_at : to_at) - origin_ns_);
    *p++ = '}';
    raw_line(part, line, p);
  }
  count(part, 2, from_at, to_at);
}

void ChromeJsonWriter::end(const JsonObject& other_data) {
  set_other_data(other_data);
  end();
}

void ChromeJsonWriter::end() {
  // Parts after a counter track's last sample start with its last value.
  for (const auto& [key, track] : counters_) {
    const auto& [pid, name, series] = key;
    for (size_t p = track.part + 1; p < parts_.size(); ++p)
      counter_line(parts_[p], pid, name, parts_[p].start_ns, series, track.value);
  }
  for (Part& part : parts_) end_part(part);
}

}  // namespace prof::report
