#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "report/pftrace_writer.hpp"
#include "report/protobuf_wire.hpp"

using namespace prof::report;

namespace {

// A protobuf reader just big enough for the test: a message is a list of fields, each a varint,
// a fixed64 or bytes (which may be a nested message: decode() it again).
struct Field {
  uint32_t number;
  uint32_t wire_type;
  uint64_t value = 0;
  std::string bytes;
};

uint64_t read_varint(std::string_view s, size_t& i) {
  uint64_t value = 0;
  for (int shift = 0; i < s.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(s[i++]);
    value |= uint64_t{byte & 0x7Fu} << shift;
    if (!(byte & 0x80)) return value;
    REQUIRE(shift < 63);
  }
  FAIL("truncated varint");
  return 0;
}

std::vector<Field> decode(std::string_view s) {
  std::vector<Field> fields;
  size_t i = 0;
  while (i < s.size()) {
    const uint64_t key = read_varint(s, i);
    Field f{static_cast<uint32_t>(key >> 3), static_cast<uint32_t>(key & 7)};
    if (f.wire_type == 0) {
      f.value = read_varint(s, i);
    } else if (f.wire_type == 1) {
      REQUIRE(i + 8 <= s.size());
      for (int b = 0; b < 8; ++b) f.value |= uint64_t{static_cast<uint8_t>(s[i + b])} << (8 * b);
      i += 8;
    } else if (f.wire_type == 2) {
      const uint64_t length = read_varint(s, i);
      REQUIRE(i + length <= s.size());
      f.bytes.assign(s.substr(i, length));
      i += length;
    } else {
      FAIL("unexpected wire type " << f.wire_type);
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

const Field* find(const std::vector<Field>& fields, uint32_t number) {
  for (const Field& f : fields)
    if (f.number == number) return &f;
  return nullptr;
}
std::vector<uint64_t> all_values(const std::vector<Field>& fields, uint32_t number) {
  std::vector<uint64_t> values;
  for (const Field& f : fields)
    if (f.number == number) values.push_back(f.value);
  return values;
}

// The trace as a reader sees it: tracks by uuid, events in file order with names resolved
// through the interned data.
struct Event {
  uint64_t timestamp, type, track;
  std::string name, category;
  std::map<std::string, std::string> args;  // value as text: ints in decimal, strings as they are
  std::vector<uint64_t> flow_ids, terminating_flow_ids;
  int64_t counter_value = 0;
  uint64_t flags;
};
struct Track {
  std::string name;
  uint64_t parent = 0;
  int64_t pid = -1, tid = -1;  // process or thread descriptor
  bool is_process = false, is_thread = false, is_counter = false;
  uint64_t counter_unit = 0;
};
struct Decoded {
  std::map<uint64_t, Track> tracks;
  std::vector<Event> events;
  std::vector<uint64_t> packet_flags;
};

// A TrackDescriptor (TracePacket field 60): its uuid, name, parent, and process, thread or counter.
void read_track(const std::vector<Field>& d, std::map<uint64_t, Track>& tracks) {
  Track& track = tracks[find(d, 1)->value];
  if (const Field* name = find(d, 2)) track.name = name->bytes;
  if (const Field* parent = find(d, 5)) track.parent = parent->value;
  if (const Field* process = find(d, 3)) {
    const auto p = decode(process->bytes);
    track.is_process = true;
    track.pid = static_cast<int64_t>(find(p, 1)->value);
    if (const Field* name = find(p, 6)) track.name = name->bytes;
  }
  if (const Field* thread = find(d, 4)) {
    const auto t = decode(thread->bytes);
    track.is_thread = true;
    track.pid = static_cast<int64_t>(find(t, 1)->value);
    track.tid = static_cast<int64_t>(find(t, 2)->value);
    if (const Field* name = find(t, 5)) track.name = name->bytes;
  }
  if (const Field* counter = find(d, 8)) {
    track.is_counter = true;
    const auto c = decode(counter->bytes);
    if (const Field* unit = find(c, 3)) track.counter_unit = unit->value;
  }
}

Decoded read_trace(const std::string& bytes) {
  Decoded trace;
  std::map<uint64_t, std::string> names, categories, annotation_names;
  for (const Field& packet_field : decode(bytes)) {
    REQUIRE(packet_field.number == 1);  // Trace.packet
    REQUIRE(packet_field.wire_type == 2);
    const auto packet = decode(packet_field.bytes);
    REQUIRE(find(packet, 10));  // trusted_packet_sequence_id
    CHECK(find(packet, 10)->value == 1);
    const Field* flags = find(packet, 13);
    trace.packet_flags.push_back(flags ? flags->value : 0);
    if (const Field* interned = find(packet, 12)) {
      for (const Field& entry : decode(interned->bytes)) {
        const auto e = decode(entry.bytes);
        std::map<uint64_t, std::string>& index = entry.number == 1   ? categories
                                                 : entry.number == 2 ? names
                                                                     : annotation_names;
        REQUIRE(find(e, 1));
        CHECK(index.count(find(e, 1)->value) == 0);  // an iid is given once
        index[find(e, 1)->value] = find(e, 2)->bytes;
      }
    }
    if (const Field* descriptor = find(packet, 60))
      read_track(decode(descriptor->bytes), trace.tracks);
    if (const Field* event_field = find(packet, 11)) {
      const auto e = decode(event_field->bytes);
      Event event{find(packet, 8) ? find(packet, 8)->value : UINT64_MAX, find(e, 9)->value,
                  find(e, 11)->value};
      event.flags = flags ? flags->value : 0;
      if (const Field* iid = find(e, 10)) {
        REQUIRE(names.count(iid->value));
        event.name = names[iid->value];
      }
      if (const Field* name = find(e, 23)) event.name = name->bytes;
      if (const Field* iid = find(e, 3)) event.category = categories.at(iid->value);
      if (const Field* category = find(e, 22)) event.category = category->bytes;
      for (const Field& a : e) {
        if (a.number != 4) continue;
        const auto annotation = decode(a.bytes);
        const std::string key = find(annotation, 1)
                                    ? annotation_names.at(find(annotation, 1)->value)
                                    : find(annotation, 10)->bytes;
        std::string value;
        if (const Field* v = find(annotation, 4))
          value = std::to_string(static_cast<int64_t>(v->value));
        if (const Field* v = find(annotation, 6)) value = v->bytes;
        if (const Field* v = find(annotation, 2)) value = v->value ? "true" : "false";
        if (const Field* v = find(annotation, 9)) value = "json:" + v->bytes;
        if (const Field* v = find(annotation, 5)) {
          double d;
          std::memcpy(&d, &v->value, sizeof d);
          value = "double:" + std::to_string(d);
        }
        event.args[key] = value;
      }
      event.flow_ids = all_values(e, 36);
      event.terminating_flow_ids = all_values(e, 42);
      if (const Field* v = find(e, 30)) event.counter_value = static_cast<int64_t>(v->value);
      trace.events.push_back(std::move(event));
    }
  }
  return trace;
}

uint64_t track_named(const Decoded& trace, const std::string& name) {
  for (const auto& [uuid, track] : trace.tracks)
    if (track.name == name) return uuid;
  FAIL("no track named " << name);
  return 0;
}

}  // namespace

TEST_CASE("protobuf wire: varints, fixed64 and nested lengths of every size", "[report][pftrace]") {
  namespace wire = protobuf_wire;
  CHECK(wire::varint_size(0) == 1);
  CHECK(wire::varint_size(127) == 1);
  CHECK(wire::varint_size(128) == 2);
  CHECK(wire::varint_size(UINT64_MAX) == 10);
  wire::ProtoBuffer buffer;
  buffer.varint(1, 300);  // the protobuf guide's example: 08 ac 02
  CHECK(buffer.view() == std::string_view("\x08\xac\x02", 3));
  buffer.clear();
  buffer.varint(2, static_cast<uint64_t>(int64_t{-1}));  // int64 -1: ten bytes
  CHECK(buffer.size() == 11);
  buffer.clear();
  buffer.fixed64(47, 0x0102030405060708);
  CHECK(buffer.view() == std::string_view("\xf9\x02\x08\x07\x06\x05\x04\x03\x02\x01", 10));
  // Nested messages whose length needs 1, 2 and 3 bytes, inside one another.
  for (size_t length : {0u, 127u, 128u, 300u, 20000u}) {
    buffer.clear();
    const size_t outer = buffer.open(1);
    buffer.varint(3, 7);
    const size_t inner = buffer.open(2);
    buffer.raw(std::string(length, 'x'));
    buffer.close(inner);
    buffer.close(outer);
    const auto top = decode(buffer.view());
    REQUIRE(top.size() == 1);
    CHECK(top[0].number == 1);
    const auto fields = decode(top[0].bytes);
    REQUIRE(fields.size() == 2);
    CHECK(fields[0].value == 7);
    CHECK(fields[1].bytes == std::string(length, 'x'));
    CHECK(buffer.size() == 1 + wire::varint_size(2 + 1 + wire::varint_size(length) + length) + 2 +
                               1 + wire::varint_size(length) + length);
  }
}

TEST_CASE("pftrace: tracks, slices, flows, counters and names", "[report][pftrace]") {
  for (bool intern : {true, false}) {
    CAPTURE(intern);
    StringSink sink;
    PftraceWriter writer(sink, 1'000'000, PftraceWriter::Options{intern});
    writer.begin();
    writer.process_name(1, "Runtime API", 0);
    writer.os_thread_name(1, 42, "Thread 42", 3);
    writer.process_name(3, "Compute on Device 0", 3);
    writer.thread_name(3, 7, "Stream 0", 1);
    CHECK(writer.process_named(1));
    CHECK_FALSE(writer.process_named(2));
    // The timeline's order: the kernel (and its arrow), then the call that launched it.
    writer.complete_raw(3, 7, "\"k<\\\"x\\\">\"", "\"kernel\"", 1'002'000, 1'002'500,
                        "{\"grid\":\"(1,1,1)\",\"stream\":0,\"correlation_id\":9}");
    const FlowSource launch{"\"hipLaunchKernel\"", "\"api\"", 1'001'234, 1'001'900};
    writer.flow(9, 1, 42, 3, 7, 1'002'000, 1'002'500, launch);
    writer.complete_raw(3, 7, "\"k2\"", "\"kernel\"", 1'002'500, 1'003'000,
                        "{\"correlation_id\":9}");  // back to back
    writer.flow(9, 1, 42, 3, 7, 1'002'500, 1'003'000, launch);
    writer.complete_raw(
        1, 42, "\"hipLaunchKernel\"", "\"api\"", 1'001'234, 1'001'900,
        "{\"sequence\":1,\"correlation_id\":9,\"result\":0,\"stream\":null,\"bytes\":-5,"
        "\"ratio\":0.5,\"ok\":true,\"dims\":[1,2],\"peer\":\"a\\u00e9\\ud83d\\ude00\"}");
    // Names with quotes, non-ASCII and malformed escapes (a lone surrogate, a bad \u, \q).
    JsonObject args;
    args.add("what", "say \"hi\"\n");
    writer.complete(1, 42, "caf\xc3\xa9 \"x\"", "api", 1'004'000, 1'005'000, args);
    writer.complete_raw(1, 42, "\"\\ud800|\\u12|\\q|\\/\"", "\"api\"", 1'006'000, 1'007'000, "{}");
    writer.counter(3, "Device memory in use", 1'002'000, "bytes", 4096);
    writer.counter(3, "Device memory in use", 1'003'000, "bytes", 0);
    writer.instant(1, 42, "mark", "marker", 1'004'500, JsonObject{});
    writer.end();
    CHECK(writer.flows_dropped() == 0);
    CHECK(writer.times_clamped() == 0);
    CHECK(writer.bytes_written() == static_cast<int64_t>(sink.text().size()));

    const Decoded trace = read_trace(sink.text());
    REQUIRE(!trace.packet_flags.empty());
    CHECK(trace.packet_flags[0] & 1);  // SEQ_INCREMENTAL_STATE_CLEARED on the first packet
    for (size_t i = 1; i < trace.packet_flags.size(); ++i) CHECK((trace.packet_flags[i] & 1) == 0);

    const uint64_t api = track_named(trace, "Runtime API"),
                   thread = track_named(trace, "Thread 42"),
                   device = track_named(trace, "Compute on Device 0"),
                   stream = track_named(trace, "Stream 0"),
                   memory = track_named(trace, "Device memory in use");
    CHECK(trace.tracks.at(api).is_process);
    CHECK(trace.tracks.at(api).pid == 1);
    CHECK(trace.tracks.at(thread).is_thread);
    CHECK(trace.tracks.at(thread).pid == 1);
    CHECK(trace.tracks.at(thread).tid == 42);
    CHECK_FALSE(trace.tracks.at(stream).is_thread);  // a row, not a fake thread
    CHECK(trace.tracks.at(stream).parent == device);
    CHECK(trace.tracks.at(memory).is_counter);
    CHECK(trace.tracks.at(memory).parent == device);
    CHECK(trace.tracks.at(memory).counter_unit == 3);  // UNIT_SIZE_BYTES

    // Every BEGIN has an END on its track, later in time (or equal), properly nested.
    std::map<uint64_t, std::vector<const Event*>> open;
    std::vector<std::pair<const Event*, uint64_t>> slices;  // begin event, end time
    std::vector<const Event*> ends;
    for (const Event& e : trace.events) {
      if (e.type == 1) open[e.track].push_back(&e);
      if (e.type == 2) {
        REQUIRE(!open[e.track].empty());
        CHECK(open[e.track].back()->timestamp <= e.timestamp);
        slices.push_back({open[e.track].back(), e.timestamp});
        ends.push_back(&e);
        open[e.track].pop_back();
      }
    }
    for (const auto& [track, stack] : open) CHECK(stack.empty());
    auto slice_named = [&](const std::string& name) {
      for (size_t i = 0; i < slices.size(); ++i)
        if (slices[i].first->name == name) return i;
      FAIL("no slice " << name);
      return size_t{0};
    };
    const size_t kernel = slice_named("k<\"x\">"), kernel2 = slice_named("k2"),
                 call = slice_named("hipLaunchKernel");
    CHECK(slices.size() == 5);
    CHECK(slices[kernel].first->timestamp == 2'000);  // ns from the origin
    CHECK(slices[kernel].second == 2'500);
    CHECK(slices[kernel].first->track == stream);
    CHECK(slices[kernel].first->category == "kernel");
    CHECK(slices[kernel].first->args.at("grid") == "(1,1,1)");
    CHECK(slices[kernel].first->args.at("correlation_id") == "9");
    CHECK(slices[call].first->track == thread);
    CHECK(slices[call].first->timestamp == 1'234);
    CHECK(slices[call].second == 1'900);
    const auto& call_args = slices[call].first->args;
    CHECK(call_args.count("stream") == 0);  // null: no annotation
    CHECK(call_args.at("bytes") == "-5");
    CHECK(call_args.at("ratio") == "double:0.500000");
    CHECK(call_args.at("ok") == "true");
    CHECK(call_args.at("dims") == "json:[1,2]");
    CHECK(call_args.at("peer") == "a\xc3\xa9\xf0\x9f\x98\x80");
    // The back-to-back kernels: the first closes before the second opens at the same ns.
    const Event* first_end = ends[kernel];
    CHECK(first_end - &trace.events[0] < slices[kernel2].first - &trace.events[0]);

    // Two arrows from the one call, each its own id: out on the call's BEGIN, in on each kernel's
    // BEGIN (Perfetto v20 binds terminating ids there, not on an END).
    REQUIRE(slices[call].first->flow_ids.size() == 2);
    const uint64_t to_first = slices[call].first->flow_ids[0],
                   to_second = slices[call].first->flow_ids[1];
    CHECK(to_first != to_second);
    CHECK(slices[kernel].first->terminating_flow_ids == std::vector<uint64_t>{to_first});
    CHECK(slices[kernel2].first->terminating_flow_ids == std::vector<uint64_t>{to_second});
    CHECK(ends[kernel]->terminating_flow_ids.empty());
    CHECK(ends[kernel2]->terminating_flow_ids.empty());

    CHECK(slices[slice_named("caf\xc3\xa9 \"x\"")].first->args.at("what") == "say \"hi\"\n");
    // U+FFFD for each malformed escape; what follows it stays.
    slice_named(
        "\xEF\xBF\xBD|\xEF\xBF\xBD"
        "12|\xEF\xBF\xBD|/");

    std::vector<int64_t> samples;
    for (const Event& e : trace.events)
      if (e.type == 4) {
        CHECK(e.track == memory);
        samples.push_back(e.counter_value);
      }
    CHECK(samples == std::vector<int64_t>{4096, 0});
    bool instant = false;
    for (const Event& e : trace.events)
      instant |= e.type == 3 && e.name == "mark" && e.track == thread;
    CHECK(instant);
    if (intern) {
      for (const Event& e : trace.events)
        if (e.type == 1 || e.type == 3) CHECK(e.flags & 2);  // SEQ_NEEDS_INCREMENTAL_STATE
    }
  }
}

TEST_CASE("pftrace: nested slices close inside out, and a parent never closes before its child",
          "[report][pftrace]") {
  StringSink sink;
  PftraceWriter writer(sink, 0);
  writer.begin();
  writer.thread_name(1, 5, "Markers", 0);
  writer.complete(1, 5, "outer", "range", 100, 1'000, JsonObject{});
  writer.complete(1, 5, "inner", "range", 500, 1'000, JsonObject{});  // ends with its parent
  writer.complete(1, 5, "next", "range", 1'000, 1'100, JsonObject{});
  writer.end();
  const Decoded trace = read_trace(sink.text());
  std::vector<std::string> order;
  std::vector<std::string> stack;
  for (const Event& e : trace.events) {
    if (e.type == 1) {
      stack.push_back(e.name);
      order.push_back("B " + e.name + " " + std::to_string(e.timestamp));
    } else if (e.type == 2) {
      order.push_back("E " + stack.back() + " " + std::to_string(e.timestamp));
      stack.pop_back();
    }
  }
  CHECK(order == std::vector<std::string>{"B outer 100", "B inner 500", "E inner 1000",
                                          "E outer 1000", "B next 1000", "E next 1100"});
}

TEST_CASE(
    "pftrace: async ranges that overlap get tracks of their own, and arrows that cannot be placed "
    "are counted",
    "[report][pftrace]") {
  StringSink sink;
  PftraceWriter writer(sink, 0);
  writer.begin();
  writer.process_name(1, "Runtime API", 0);
  writer.async_slice(1, 5, 1, "load", "range", 100, 500, JsonObject{});
  writer.async_slice(1, 6, 2, "load", "range", 200, 300, JsonObject{});  // overlaps the first
  writer.async_slice(1, 5, 3, "load", "range", 600, 700,
                     JsonObject{});  // the first track is free again
  // The call's slice was written before its arrow: that arrow cannot be placed any more.
  writer.complete(1, 5, "call", "api", 10, 20, JsonObject{});
  writer.complete(2, 1, "kernel", "kernel", 30, 40, JsonObject{});
  writer.flow(1, 1, 5, 2, 1, 30, 40, FlowSource{"\"call\"", "\"api\"", 10, 20});
  writer.complete(1, 5, "later call", "api", 50, 60, JsonObject{});
  writer.end();
  CHECK(writer.flows_dropped() == 1);
  const Decoded trace = read_trace(sink.text());
  std::map<uint64_t, int> ranges_per_track;
  for (const Event& e : trace.events)
    if (e.type == 1 && e.name == "load") ++ranges_per_track[e.track];
  CHECK(ranges_per_track.size() == 2);
  for (const auto& [uuid, n] : ranges_per_track) {
    CHECK(trace.tracks.at(uuid).name == "load");
    CHECK(trace.tracks.at(uuid).parent == track_named(trace, "Runtime API"));
  }
}

// An idle stream's first op begins at the call's own ns. The trace processor keeps file order on
// a tie, and a terminating id read before its flow began binds nothing: the kernel's BEGIN goes
// after the call's, with the names it introduced in a packet before it.
TEST_CASE("pftrace: work that begins at its call's ns comes after the call in the file",
          "[report][pftrace]") {
  StringSink sink;
  PftraceWriter writer(sink, 0);
  writer.begin();
  writer.process_name(1, "Runtime API", 0);
  writer.os_thread_name(1, 5, "Thread 5", 0);
  writer.thread_name(2, 1, "Stream 1", 0);
  writer.complete_raw(2, 1, "\"tied kernel\"", "\"kernel\"", 100, 400, "{\"correlation_id\":3}");
  writer.flow(3, 1, 5, 2, 1, 100, 400, FlowSource{"\"hipLaunchKernel\"", "\"api\"", 100, 150});
  writer.complete_raw(1, 5, "\"hipLaunchKernel\"", "\"api\"", 100, 150, "{\"correlation_id\":3}");
  writer.end();
  CHECK(writer.flows_dropped() == 0);
  const Decoded trace = read_trace(sink.text());
  const Event* call = nullptr;
  const Event* kernel = nullptr;
  for (const Event& e : trace.events) {
    if (e.type != 1) continue;
    if (e.name == "hipLaunchKernel") call = &e;
    if (e.name == "tied kernel") kernel = &e;
  }
  REQUIRE(call);
  REQUIRE(kernel);
  CHECK(call < kernel);  // file order
  REQUIRE(call->flow_ids.size() == 1);
  CHECK(kernel->terminating_flow_ids == call->flow_ids);
  CHECK(kernel->category == "kernel");  // its interned names resolve
}

TEST_CASE("pftrace: an empty trace is one packet that clears incremental state",
          "[report][pftrace]") {
  StringSink sink;
  PftraceWriter writer(sink, 0);
  writer.begin();
  writer.end();
  const Decoded trace = read_trace(sink.text());
  CHECK(trace.packet_flags == std::vector<uint64_t>{1});
}
