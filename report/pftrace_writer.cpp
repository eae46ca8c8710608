#include "report/pftrace_writer.hpp"

#include <bit>
#include <charconv>
#include <cstring>

#include "report/utf8.hpp"

namespace prof::report {

namespace {

using protobuf_wire::ProtoBuffer;

// Field numbers, from Perfetto's protos (protos/perfetto/trace/...): trace.proto,
// trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
// process_descriptor.proto, thread_descriptor.proto, counter_descriptor.proto,
// debug_annotation.proto, interned_data/interned_data.proto.
constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr uint32_t kTimestamp = 8, kTrackEvent = 11, kTrustedPacketSequenceId = 10,
                   kInternedData = 12, kSequenceFlags = 13, kTrackDescriptor = 60;
constexpr uint64_t kSeqIncrementalStateCleared = 1, kSeqNeedsIncrementalState = 2;
// TrackDescriptor
constexpr uint32_t kTrackUuid = 1, kTrackName = 2, kTrackProcess = 3, kTrackThread = 4,
                   kTrackParentUuid = 5, kTrackCounter = 8, kTrackChildOrdering = 11,
                   kTrackSiblingOrderRank = 12;
constexpr uint64_t kChildOrderingExplicit = 3;
// ProcessDescriptor, ThreadDescriptor, CounterDescriptor
constexpr uint32_t kProcessPid = 1, kProcessName = 6;
constexpr uint32_t kThreadPid = 1, kThreadTid = 2, kThreadName = 5;
constexpr uint32_t kCounterUnit = 3;
constexpr uint64_t kUnitSizeBytes = 3;
// TrackEvent
constexpr uint32_t kEventCategoryIids = 3, kEventDebugAnnotations = 4, kEventType = 9,
                   kEventNameIid = 10, kEventTrackUuid = 11, kEventCategories = 22, kEventName = 23,
                   kEventCounterValue = 30;
// The flow id fields as varints (flow_ids_old = 36, terminating_flow_ids_old = 42), not their
// fixed64 successors (47, 48): trace_processor reads both, the fixed64 pair only since late 2021
// (after Perfetto v20, the UI the viewer test pins), and a small id is 1-3 bytes as a varint, 8 as
// fixed64.
constexpr uint32_t kEventFlowIds = 36, kEventTerminatingFlowIds = 42;
constexpr uint64_t kTypeSliceBegin = 1, kTypeSliceEnd = 2, kTypeInstant = 3, kTypeCounter = 4;
// DebugAnnotation
constexpr uint32_t kAnnotationNameIid = 1, kAnnotationBool = 2, kAnnotationInt = 4,
                   kAnnotationDouble = 5, kAnnotationString = 6, kAnnotationJson = 9,
                   kAnnotationName = 10;
// InternedData: event_categories = 1, event_names = 2, debug_annotation_names = 3; each entry
// (EventCategory, EventName, DebugAnnotationName) is {iid = 1, name = 2}.
constexpr uint32_t kInternedIid = 1, kInternedName = 2;

constexpr uint64_t kSequenceId = 1;               // the one packet sequence this writer makes
constexpr size_t kChunkBytes = size_t{64} << 10;  // packets reach the sink in chunks of about this
constexpr size_t kMostWaitingPerRow = 4096;       // flow ends waiting on one row (memory bound)

// JSON string text (no quotes) -> its characters. Malformed escapes (\q, a bad or truncated \u,
// a lone surrogate) become U+FFFD: prof's own JSON has none (names' stray bytes are already the
// text \xNN there, report/utf8.hpp), so this is for JSON from elsewhere.
bool hex4(std::string_view s, size_t at, uint32_t& value) {
  if (at + 4 > s.size()) return false;
  value = 0;
  for (size_t i = at; i < at + 4; ++i) {
    const int d = hex_value(s[i]);
    if (d < 0) return false;
    value = value << 4 | static_cast<uint32_t>(d);
  }
  return true;
}

void append_json_decoded(std::string& out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const char* escape = static_cast<const char*>(std::memchr(s.data() + i, '\\', s.size() - i));
    const size_t run_end = escape ? static_cast<size_t>(escape - s.data()) : s.size();
    out.append(s.data() + i, run_end - i);
    i = run_end;
    if (i >= s.size()) break;
    if (i + 1 >= s.size()) {
      out.append(kReplacementChar);
      break;
    }
    const char c = s[i + 1];
    i += 2;
    switch (c) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp = 0;
        if (!hex4(s, i, cp)) {
          out.append(kReplacementChar);
          break;
        }
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low = 0;
          if (i + 6 <= s.size() && s[i] == '\\' && s[i + 1] == 'u' && hex4(s, i + 2, low) &&
              low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          } else {
            out.append(kReplacementChar);
            break;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          out.append(kReplacementChar);
          break;
        }
        append_code_point(out, cp);
        break;
      }
      default: out.append(kReplacementChar); break;
    }
  }
}

// The text between a JSON string's quotes (as given, if it has none).
std::string_view unquoted(std::string_view json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"')
    return json.substr(1, json.size() - 2);
  return json;
}

// Index of the quote that closes the string opening at s[open], or s.size().
size_t string_close(std::string_view s, size_t open) {
  for (size_t i = open + 1; i < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;
    else if (s[i] == '"')
      return i;
  }
  return s.size();
}

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return i;
}

// Index just past the object or array opening at s[open].
size_t nested_end(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"')
      i = string_close(s, i);
    else if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth == 0)
      return i + 1;
  }
  return s.size();
}

}  // namespace

PftraceWriter::PftraceWriter(TextSink& sink, int64_t origin_ns, Options options)
    : sink_(sink), origin_ns_(origin_ns), options_(options) {}

// The first packet clears the sequence's incremental state and holds nothing else, so every
// pftrace prof writes starts with the same bytes (report_files.hpp kPftraceSignature).
void PftraceWriter::begin() {
  if (first_packet_) close_packet(open_packet(INT64_MIN, false));
}

uint64_t PftraceWriter::timestamp(int64_t ns) {
  if (ns < origin_ns_) {
    ++times_clamped_;
    return 0;
  }
  return static_cast<uint64_t>(ns - origin_ns_);
}

void PftraceWriter::count(int64_t events, int64_t begin_ns, int64_t end_ns) {
  events_written_ += events;
  min_ns_ = std::min(min_ns_, begin_ns);
  max_ns_ = std::max(max_ns_, end_ns);
}

void PftraceWriter::flush_if_full() {
  if (out_.size() < kChunkBytes) return;
  sink_.write(out_.view());
  bytes_written_ += static_cast<int64_t>(out_.size());
  out_.clear();
}

size_t PftraceWriter::open_packet(int64_t at_ns, bool uses_interning) {
  const size_t packet = out_.open(kTracePacket);
  if (at_ns != INT64_MIN) out_.varint(kTimestamp, timestamp(at_ns));
  out_.varint(kTrustedPacketSequenceId, kSequenceId);
  uint64_t flags = 0;
  if (first_packet_) flags |= kSeqIncrementalStateCleared;  // interned ids are valid from here on
  if (uses_interning && options_.intern) flags |= kSeqNeedsIncrementalState;
  if (flags) out_.varint(kSequenceFlags, flags);
  first_packet_ = false;
  return packet;
}

// The interned entries this packet introduced go in the packet itself (field order is free in
// protobuf): a reader has them before it resolves the packet's ids.
void PftraceWriter::close_packet(size_t packet) {
  if (!new_entries_.empty()) {
    const size_t data = out_.open(kInternedData);
    for (const NewEntry& entry : new_entries_) {
      const size_t message = out_.open(entry.field);
      out_.varint(kInternedIid, entry.iid);
      out_.bytes(kInternedName, entry.text);
      out_.close(message);
    }
    out_.close(data);
    new_entries_.clear();
  }
  out_.close(packet);
  flush_if_full();
}

uint64_t PftraceWriter::intern(Index& index, std::string_view text, bool is_json) {
  Recent& recent =
      recent_[(reinterpret_cast<uintptr_t>(text.data()) >> 2 ^ text.size() * 0x9E37 ^ index.field) %
              kRecentSlots];
  if (recent.data == text.data() && recent.index == &index && recent.is_json == is_json &&
      recent.text == text)
    return recent.iid;
  const uint64_t iid = lookup(index, text, is_json);
  recent.data = text.data();
  recent.index = &index;
  recent.is_json = is_json;
  recent.iid = iid;
  recent.text.assign(text);
  return iid;
}

uint64_t PftraceWriter::lookup(Index& index, std::string_view text, bool is_json) {
  // A JSON text without a backslash decodes to itself: it is looked up as its decoded text, and
  // needs no entry by_json (which would hold every kernel name twice).
  const bool as_given = is_json && text.find('\\') != std::string_view::npos;
  Interned& cache = as_given ? index.by_json : index.by_text;
  if (auto it = cache.find(text); it != cache.end()) return it->second;
  scratch_.clear();
  if (is_json)
    append_json_decoded(scratch_, text);
  else
    append_utf8_escaped(scratch_, text);
  uint64_t iid;
  if (auto it = index.by_text.find(scratch_); it != index.by_text.end()) {
    iid = it->second;
  } else {
    iid = index.next_iid++;
    const std::string_view key = text_arena_.keep(scratch_);
    index.by_text.emplace(key, iid);
    new_entries_.push_back(NewEntry{index.field, iid, key});
  }
  // A plain text that needed escaping, or a JSON text with escapes: remembered as given, so the
  // next time costs one lookup.
  if (as_given || (!is_json && scratch_ != text)) cache.emplace(text_arena_.keep(text), iid);
  return iid;
}

void PftraceWriter::string_field(uint32_t field, std::string_view text, bool is_json) {
  scratch_.clear();
  if (is_json)
    append_json_decoded(scratch_, text);
  else
    append_utf8_escaped(scratch_, text);
  out_.bytes(field, scratch_);
}

PftraceWriter::Process& PftraceWriter::process(int64_t pid) {
  auto [it, added] = processes_.try_emplace(pid, Process{0});
  if (added) {
    it->second.uuid = next_uuid_++;
    describe_process(pid, it->second, {}, INT64_MIN);  // a parent must exist before its children
  }
  return it->second;
}

void PftraceWriter::describe_process(int64_t pid, Process& p, std::string_view name,
                                     int64_t sort_index) {
  const size_t packet = open_packet(INT64_MIN, false);
  const size_t track = out_.open(kTrackDescriptor);
  out_.varint(kTrackUuid, p.uuid);
  const size_t descriptor = out_.open(kTrackProcess);
  out_.varint(kProcessPid, static_cast<uint64_t>(pid));
  if (!name.empty()) string_field(kProcessName, name, false);
  out_.close(descriptor);
  // Rows in the order the JSON's sort indexes give, where the viewer honours it (Perfetto UIs
  // from 2024 on; older ones ignore both fields).
  out_.varint(kTrackChildOrdering, kChildOrderingExplicit);
  if (sort_index != INT64_MIN)
    out_.varint(kTrackSiblingOrderRank, static_cast<uint64_t>(sort_index));
  out_.close(track);
  close_packet(packet);
}

bool PftraceWriter::process_named(int64_t pid) const {
  auto it = processes_.find(pid);
  return it != processes_.end() && it->second.named;
}

void PftraceWriter::process_name(int64_t pid, std::string_view name, int64_t sort_index) {
  settle();
  auto [it, added] = processes_.try_emplace(pid, Process{0});
  if (added) it->second.uuid = next_uuid_++;
  it->second.named = true;
  describe_process(pid, it->second, name,
                   sort_index);  // again, named, when it was described unnamed
}

PftraceWriter::Track& PftraceWriter::new_track(int64_t pid) {
  tracks_.push_back(Track{next_uuid_++, pid});
  return tracks_.back();
}

PftraceWriter::Track& PftraceWriter::row(int64_t pid, int64_t tid) {
  if (last_track_ && last_row_ == std::pair{pid, tid}) return *last_track_;
  auto it = rows_.find({pid, tid});
  if (it == rows_.end()) {
    // Events on a row nobody named: a track named after its tid.
    describe_row(pid, tid, std::to_string(tid), INT64_MIN, false);
    it = rows_.find({pid, tid});
  }
  last_row_ = {pid, tid};
  last_track_ = it->second;
  return *last_track_;
}

void PftraceWriter::describe_row(int64_t pid, int64_t tid, std::string_view name,
                                 int64_t sort_index, bool os_thread) {
  const uint64_t parent = process(pid).uuid;
  auto [it, added] = rows_.try_emplace({pid, tid}, nullptr);
  if (added) it->second = &new_track(pid);
  const size_t packet = open_packet(INT64_MIN, false);
  const size_t track = out_.open(kTrackDescriptor);
  out_.varint(kTrackUuid, it->second->uuid);
  if (os_thread) {
    const size_t thread = out_.open(kTrackThread);
    out_.varint(kThreadPid, static_cast<uint64_t>(pid));
    out_.varint(kThreadTid, static_cast<uint64_t>(tid));
    string_field(kThreadName, name, false);
    out_.close(thread);
  } else {
    out_.varint(kTrackParentUuid, parent);
    string_field(kTrackName, name, false);
  }
  if (sort_index != INT64_MIN)
    out_.varint(kTrackSiblingOrderRank, static_cast<uint64_t>(sort_index));
  out_.close(track);
  close_packet(packet);
}

void PftraceWriter::thread_name(int64_t pid, int64_t tid, std::string_view name,
                                int64_t sort_index) {
  settle();
  describe_row(pid, tid, name, sort_index, false);
}

void PftraceWriter::os_thread_name(int64_t pid, int64_t tid, std::string_view name,
                                   int64_t sort_index) {
  settle();
  describe_row(pid, tid, name, sort_index, true);
}

void PftraceWriter::event_head(uint32_t type, const Track& track, std::string_view name,
                               bool name_is_json, std::string_view category,
                               bool category_is_json) {
  out_.varint(kEventType, type);
  out_.varint(kEventTrackUuid, track.uuid);
  if (options_.intern) {
    out_.varint(kEventNameIid, intern(names_, name, name_is_json));
    if (!category.empty())
      out_.varint(kEventCategoryIids, intern(categories_, category, category_is_json));
  } else {
    string_field(kEventName, name, name_is_json);
    if (!category.empty()) string_field(kEventCategories, category, category_is_json);
  }
}

// Each member of a JSON object becomes a debug annotation: an integer, a string, a bool or a
// double as such, an object or array as its JSON text; null is left out (the slice has no such
// value). The object is one prof wrote, so a malformed one ends the walk, never the trace.
void PftraceWriter::annotations(std::string_view s) {
  size_t i = skip_space(s, 0);
  if (i >= s.size() || s[i] != '{') return;
  ++i;
  while (true) {
    i = skip_space(s, i);
    if (i >= s.size() || s[i] != '"') return;
    const size_t key_close = string_close(s, i);
    const std::string_view key = s.substr(i + 1, key_close - i - 1);
    i = skip_space(s, key_close + 1);
    if (i >= s.size() || s[i] != ':') return;
    i = skip_space(s, i + 1);
    if (i >= s.size()) return;
    const size_t value_at = i;
    if (s[i] == '"')
      i = string_close(s, i) + 1;
    else if (s[i] == '{' || s[i] == '[')
      i = nested_end(s, i);
    else
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ' && s[i] != '\n') ++i;
    const std::string_view value = s.substr(value_at, std::min(i, s.size()) - value_at);
    if (value.empty()) return;
    if (value != "null") {
      const size_t annotation = out_.open(kEventDebugAnnotations);
      if (options_.intern)
        out_.varint(kAnnotationNameIid, intern(annotation_names_, key, true));
      else
        string_field(kAnnotationName, key, true);
      int64_t number = 0;
      double real = 0;
      const char* const end = value.data() + value.size();
      const char first = value.front();
      if (first == '"') {
        string_field(kAnnotationString, unquoted(value), true);
      } else if (first == '{' || first == '[') {
        out_.bytes(kAnnotationJson, value);
      } else if (first == 't' || first == 'f') {
        out_.varint(kAnnotationBool, value == "true" ? 1 : 0);
      } else if (auto r = std::from_chars(value.data(), end, number);
                 r.ec == std::errc() && r.ptr == end) {
        out_.varint(kAnnotationInt, static_cast<uint64_t>(number));
      } else if (auto d = std::from_chars(value.data(), end, real);
                 d.ec == std::errc() && d.ptr == end) {
        out_.fixed64(kAnnotationDouble, std::bit_cast<uint64_t>(real));
      } else {
        out_.bytes(kAnnotationJson, value);
      }
      out_.close(annotation);
    }
    i = skip_space(s, i);
    if (i >= s.size() || s[i] != ',') return;
    ++i;
  }
}

void PftraceWriter::write_end(const Track& track, const OpenSlice& open) {
  const size_t packet = open_packet(open.end_ns, false);
  const size_t event = out_.open(kTrackEvent);
  out_.varint(kEventType, kTypeSliceEnd);
  out_.varint(kEventTrackUuid, track.uuid);
  for (uint32_t i = 0; i < open.n_in && i < 2; ++i)
    out_.varint(kEventTerminatingFlowIds, open.in[i]);
  for (uint64_t id : open.more_in) out_.varint(kEventTerminatingFlowIds, id);
  out_.close(event);
  close_packet(packet);
}

void PftraceWriter::close_ended(Track& track, int64_t at_ns) {
  while (!track.open.empty() && track.open.back().end_ns <= at_ns) {
    write_end(track, track.open.back());
    track.open.pop_back();
  }
}

namespace {
void add_in(auto& open, uint64_t id) {
  if (open.n_in < 2)
    open.in[open.n_in++] = id;
  else
    open.more_in.push_back(id);
}
}  // namespace

void PftraceWriter::slice(Track& track, std::string_view name, bool name_is_json,
                          std::string_view category, bool category_is_json, int64_t begin_ns,
                          int64_t end_ns, std::string_view args_json, const SliceFlows& flows) {
  close_ended(track, begin_ns);
  OpenSlice open{begin_ns, end_ns};
  const size_t packet = open_packet(begin_ns, true);
  const size_t event = out_.open(kTrackEvent);
  event_head(kTypeSliceBegin, track, name, name_is_json, category, category_is_json);
  annotations(args_json);
  for (uint64_t id : flows.out) out_.varint(kEventFlowIds, id);
  for (uint64_t id : flows.in) out_.varint(kEventTerminatingFlowIds, id);
  if (!track.waiting.empty()) {
    // Flow ends waiting for this slice are placed; those for an earlier begin never will be.
    size_t kept = 0;
    for (Waiting& w : track.waiting) {
      if (w.begin_ns == begin_ns) {
        out_.varint(w.out ? kEventFlowIds : kEventTerminatingFlowIds, w.flow_id);
      } else if (w.begin_ns < begin_ns) {
        ++flows_dropped_;
      } else {
        if (&track.waiting[kept] != &w) track.waiting[kept] = std::move(w);
        ++kept;
        continue;
      }
      if (!w.deferred.empty()) emit_after_.push_back(std::move(w.deferred));
    }
    track.waiting.resize(kept);
  }
  // The BEGIN packet stays open until the next call: a flow() that ends at this slice puts its
  // terminating id here (settle() closes it).
  track.open.push_back(std::move(open));
  pending_ = Pending{packet, event, &track, begin_ns, end_ns};
  count(1, begin_ns, end_ns);
}

void PftraceWriter::settle() {
  if (!pending_.track) return;
  out_.close(pending_.event);
  close_packet(pending_.packet);
  pending_ = Pending{};
  for (const std::string& packet : emit_after_) out_.raw(packet);
  emit_after_.clear();
  flush_if_full();
}

void PftraceWriter::complete(int64_t pid, int64_t tid, std::string_view name,
                             std::string_view category, int64_t begin_ns, int64_t end_ns,
                             const JsonObject& args, const SliceFlows& flows) {
  settle();
  args_text_.clear();
  args.append_to(args_text_);
  slice(row(pid, tid), name, false, category, false, begin_ns, end_ns, args_text_, flows);
}

void PftraceWriter::complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                                 std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                                 std::string_view args_json, const SliceFlows& flows) {
  settle();
  slice(row(pid, tid), unquoted(name_json), true, unquoted(category_json), true, begin_ns, end_ns,
        args_json, flows);
}

void PftraceWriter::instant(int64_t pid, int64_t tid, std::string_view name,
                            std::string_view category, int64_t at_ns, const JsonObject& args) {
  settle();
  Track& track = row(pid, tid);
  close_ended(track, at_ns);
  args_text_.clear();
  args.append_to(args_text_);
  const size_t packet = open_packet(at_ns, true);
  const size_t event = out_.open(kTrackEvent);
  event_head(kTypeInstant, track, name, false, category, false);
  annotations(args_text_);
  out_.close(event);
  close_packet(packet);
  count(1, at_ns, at_ns);
}

void PftraceWriter::async_slice(int64_t pid, int64_t, int64_t, std::string_view name,
                                std::string_view category, int64_t begin_ns, int64_t end_ns,
                                const JsonObject& args) {
  settle();
  auto it = async_tracks_.find(std::tuple<int64_t, std::string_view>{pid, name});
  if (it == async_tracks_.end()) it = async_tracks_.try_emplace({pid, std::string(name)}).first;
  Track* track = nullptr;
  for (Track* t : it->second)
    if (t->busy_until <= begin_ns) {
      track = t;
      break;
    }
  if (!track) {
    const uint64_t parent = process(pid).uuid;
    track = &new_track(pid);
    it->second.push_back(track);
    const size_t packet = open_packet(INT64_MIN, false);
    const size_t descriptor = out_.open(kTrackDescriptor);
    out_.varint(kTrackUuid, track->uuid);
    out_.varint(kTrackParentUuid, parent);
    string_field(kTrackName, name, false);
    out_.close(descriptor);
    close_packet(packet);
  }
  track->busy_until = end_ns;
  args_text_.clear();
  args.append_to(args_text_);
  slice(*track, name, false, category, false, begin_ns, end_ns, args_text_, {});
  ++events_written_;  // as the JSON counts it: a begin and an end
}

void PftraceWriter::counter(int64_t pid, std::string_view name, int64_t at_ns,
                            std::string_view series, int64_t value) {
  settle();
  auto it = counter_tracks_.find(
      std::tuple<int64_t, std::string_view, std::string_view>{pid, name, series});
  if (it == counter_tracks_.end()) {
    const uint64_t parent = process(pid).uuid;
    it = counter_tracks_.try_emplace({pid, std::string(name), std::string(series)}, next_uuid_++)
             .first;
    const size_t packet = open_packet(INT64_MIN, false);
    const size_t descriptor = out_.open(kTrackDescriptor);
    out_.varint(kTrackUuid, it->second);
    out_.varint(kTrackParentUuid, parent);
    string_field(kTrackName, name, false);
    const size_t counter = out_.open(kTrackCounter);
    if (series == "bytes") out_.varint(kCounterUnit, kUnitSizeBytes);
    out_.close(counter);
    out_.close(descriptor);
    close_packet(packet);
  }
  const size_t packet = open_packet(at_ns, false);
  const size_t event = out_.open(kTrackEvent);
  out_.varint(kEventType, kTypeCounter);
  out_.varint(kEventTrackUuid, it->second);
  out_.varint(kEventCounterValue, static_cast<uint64_t>(value));
  out_.close(event);
  close_packet(packet);
  count(1, at_ns, at_ns);
}

void PftraceWriter::flow(int64_t, int64_t pid_from, int64_t tid_from, int64_t pid_to,
                         int64_t tid_to, int64_t to_ns, int64_t to_end_ns,
                         const FlowSource& source) {
  const uint64_t id = next_flow_id_++;
  auto wait = [this](Track& track, Waiting w) {
    if (track.waiting.size() >= kMostWaitingPerRow) {
      out_.raw(track.waiting.front().deferred);  // the slice stays, without its arrow
      track.waiting.erase(track.waiting.begin());
      ++flows_dropped_;
    }
    track.waiting.push_back(std::move(w));
  };
  // Normally the target is the slice just written, whose BEGIN is still open: the id goes there
  // (Perfetto v20 binds terminating ids on a slice's BEGIN, not on its END).
  if (pending_.track && pending_.begin_ns == to_ns && pending_.end_ns == to_end_ns) {
    auto target = rows_.find({pid_to, tid_to});
    if (target != rows_.end() && target->second == pending_.track) {
      out_.varint(kEventTerminatingFlowIds, id);
      Waiting source_end{source.begin_ns, id, true};
      if (to_ns <= source.begin_ns) {
        // Device work that began at the call's own ns (an idle stream's first op starts at the
        // call's begin event): the trace processor keeps file order on a tie and ignores a
        // terminating id before its flow began, so this BEGIN packet is cut out and written
        // right after the call's. Names it introduces go first, in a packet of their own: later
        // packets refer to them.
        std::vector<NewEntry> entries;
        entries.swap(new_entries_);
        out_.close(pending_.event);
        out_.close(pending_.packet);
        const size_t start = pending_.packet - 1;  // the packet's one-byte tag
        source_end.deferred.assign(out_.view().substr(start));
        out_.truncate(start);
        pending_ = Pending{};
        if (!entries.empty()) {
          new_entries_.swap(entries);
          close_packet(open_packet(INT64_MIN, true));
        }
      }
      settle();
      wait(row(pid_from, tid_from), std::move(source_end));
      count(2, source.begin_ns, to_end_ns);
      return;
    }
  }
  settle();
  Track& to = row(pid_to, tid_to);
  bool placed = false;
  for (auto open = to.open.rbegin(); open != to.open.rend(); ++open) {
    if (open->begin_ns == to_ns && open->end_ns == to_end_ns) {
      add_in(*open, id);
      placed = true;
      break;
    }
  }
  if (!placed) wait(to, Waiting{to_ns, id, false});
  wait(row(pid_from, tid_from), Waiting{source.begin_ns, id, true});
  count(2, source.begin_ns, to_end_ns);
}

void PftraceWriter::end() {
  settle();
  for (Track& track : tracks_) {
    while (!track.open.empty()) {
      write_end(track, track.open.back());
      track.open.pop_back();
    }
    flows_dropped_ += static_cast<int64_t>(track.waiting.size());
    for (const Waiting& w : track.waiting) out_.raw(w.deferred);
    track.waiting.clear();
  }
  if (first_packet_)
    close_packet(open_packet(INT64_MIN, false));  // an empty trace is still one packet
  if (out_.size() > 0) {
    sink_.write(out_.view());
    bytes_written_ += static_cast<int64_t>(out_.size());
    out_.clear();
  }
}

}  // namespace prof::report
