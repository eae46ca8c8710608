// A Perfetto protobuf trace (.pftrace: a `Trace`, i.e. a sequence of `TracePacket`s), streamed
// with the same calls as ChromeJsonWriter: begin(), names, one call per event, end(). One file for
// any run size: packets go to the sink in 64 KiB chunks, and memory holds only what is per row
// (a track descriptor's uuid, the slices still open on it), per distinct name (interning) and a
// few pending flow ids, never per event. ui.perfetto.dev and trace_processor open it.
//
// What is written (field numbers in pftrace_writer.cpp, from Perfetto's protos):
// - one packet sequence (trusted_packet_sequence_id 1); its first packet clears incremental state;
// - process_name(): a process track (ProcessDescriptor pid, process_name);
// - thread_name(): a track named `name` under the process track (a row: a device stream, a copy
//   direction x stream, a marker lane), so that each (pid, tid) row is a track of its own and no
//   fake thread ids appear in the trace's thread table; os_thread_name(): a thread track
//   (ThreadDescriptor pid, tid), for rows that are real OS threads;
// - complete()/complete_raw(): TYPE_SLICE_BEGIN and TYPE_SLICE_END on the row's track. Args become
//   debug annotations (ints, strings, bools, doubles; nested values as their JSON text; nulls are
//   left out). Times are ns, as (t - origin_ns) in TracePacket.timestamp (default clock);
// - instant(): TYPE_INSTANT; async_slice(): a slice on a track of its own per (pid, name) that
//   holds no two overlapping ranges (a new track only when all are busy);
// - counter(): TYPE_COUNTER on a counter track per (pid, name, series), under the process;
// - flows: flow ids on the source slice's BEGIN and terminating flow ids on the target slice, so
//   the arrow is bound to the two slices themselves, never to whatever encloses a timestamp.
//
// Ordering the caller must keep: on each row, slices come in order of begin time, nested or
// disjoint (as in the JSON). A slice's END packet is held back until the next slice on its row
// begins at or after that end (or until end()): on a tie, the trace processor's sort keeps file
// order, so a slice ending at t always closes before the next one on its row opens at t, and a
// parent never closes before a child that ends with it.
//
// Flows, streamed: flow() gives each arrow an id of its own (1, 2, 3, ...; a call that enqueued
// several kernels has several arrows). The target is normally the slice just written on
// (pid_to, tid_to) (complete_raw then flow(), as the timeline does); its END is still held back,
// so the id goes on it. The source is the call's slice, which the timeline writes after its
// device work (event_pass.hpp: kernels and copies up to a call's correlation id come before the
// call); the id waits on the source row until a slice with source.begin_ns is written there. Ids
// still waiting when a later slice is written on their row can no longer be placed: they are
// dropped and counted (flows_dropped()). Callers that know both ends' ids when writing a slice may
// pass them instead (SliceFlows), and not call flow() for those arrows; their ids must not
// collide with flow()'s.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "report/chrome_json_writer.hpp"
#include "report/protobuf_wire.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

// Flow ids given with a slice: `out` starts arrows at it (on its BEGIN), `in` ends arrows at it.
struct SliceFlows {
  std::span<const uint64_t> out = {};
  std::span<const uint64_t> in = {};
};

class PftraceWriter final : public TraceWriter {
 public:
  struct Options {
    // Event names, categories and annotation names written once per distinct string (interned
    // data) and then referred to by id. Measured: docs/design-reports.md, "Timelines".
    bool intern = true;
  };
  // `origin_ns` becomes timestamp 0, as in the JSON; earlier times are written as 0 and counted
  // (times_clamped()).
  PftraceWriter(TextSink& sink, int64_t origin_ns) : PftraceWriter(sink, origin_ns, Options{}) {}
  PftraceWriter(TextSink& sink, int64_t origin_ns, Options options);

  void set_origin(int64_t origin_ns) { origin_ns_ = origin_ns; }
  // Accepted for the JSON writer's callers; a pftrace has no place for it and does not write it.
  void set_other_data(const JsonObject&) {}

  void begin();
  void process_name(int64_t pid, std::string_view name, int64_t sort_index) override;
  // A row of process `pid`: a named track under the process track.
  void thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) override;
  // A row that is the OS thread `tid`: a thread track (ThreadDescriptor).
  void os_thread_name(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) override;
  bool process_named(int64_t pid) const override;

  void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                int64_t begin_ns, int64_t end_ns, const JsonObject& args) override {
    complete(pid, tid, name, category, begin_ns, end_ns, args, SliceFlows{});
  }
  void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                int64_t begin_ns, int64_t end_ns, const JsonObject& args, const SliceFlows& flows);
  // complete() with the name and category as JSON strings (quotes included; escapes are decoded)
  // and the args as a JSON object's text.
  void complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                    std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                    std::string_view args_json) override {
    complete_raw(pid, tid, name_json, category_json, begin_ns, end_ns, args_json, SliceFlows{});
  }
  void complete_raw(int64_t pid, int64_t tid, std::string_view name_json,
                    std::string_view category_json, int64_t begin_ns, int64_t end_ns,
                    std::string_view args_json, const SliceFlows& flows);
  void instant(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
               int64_t at_ns, const JsonObject& args) override;
  // `id` and `tid` are not needed: the range gets a track that no overlapping range shares.
  void async_slice(int64_t pid, int64_t tid, int64_t id, std::string_view name,
                   std::string_view category, int64_t begin_ns, int64_t end_ns,
                   const JsonObject& args) override;
  void counter(int64_t pid, std::string_view name, int64_t at_ns, std::string_view series,
               int64_t value) override;
  // An arrow from the slice `source` on (pid_from, tid_from) to the slice [to_ns, to_end_ns] on
  // (pid_to, tid_to); `id` (the correlation id) is already in both slices' args.
  void flow(int64_t id, int64_t pid_from, int64_t tid_from, int64_t pid_to, int64_t tid_to,
            int64_t to_ns, int64_t to_end_ns, const FlowSource& source) override;
  void end(const JsonObject&) { end(); }
  void end();

  int64_t events_written() const {
    return events_written_;
  }  // slices, instants, samples and flow ends
  int parts() const { return 1; }
  int64_t part_events(int) const { return events_written_; }
  std::pair<int64_t, int64_t> part_span(int) const {
    return min_ns_ > max_ns_ ? std::pair<int64_t, int64_t>{0, 0} : std::pair{min_ns_, max_ns_};
  }
  int64_t flows_dropped() const { return flows_dropped_; }
  int64_t times_clamped() const { return times_clamped_; }
  int64_t bytes_written() const { return bytes_written_; }

 private:
  // A slice whose BEGIN is written and whose END is held back; `in` holds the ids of arrows that
  // end at it (inline: a slice is the target of one arrow, rarely more).
  struct OpenSlice {
    int64_t begin_ns, end_ns;
    uint32_t n_in = 0;
    uint64_t in[2] = {};
    std::vector<uint64_t> more_in = {};
  };
  // A flow end waiting for its slice on this row (its begin time).
  struct Waiting {
    int64_t begin_ns;
    uint64_t flow_id;
    bool out;
    // The target's BEGIN packet, when it has the source's timestamp: written right after the
    // source's BEGIN (flow()).
    std::string deferred = {};
  };
  struct Track {
    uint64_t uuid;
    int64_t pid;
    std::vector<OpenSlice> open = {};  // nested: the innermost last
    std::vector<Waiting> waiting = {};
    int64_t busy_until = INT64_MIN;  // async tracks: the end of the last range
  };
  struct Process {
    uint64_t uuid;
    bool named = false;
  };
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<int64_t>()(p.first * 1'000'003 ^ p.second);
    }
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  // Keys point into text_arena_: a name costs its bytes and a node, not a std::string besides.
  using Interned = std::unordered_map<std::string_view, uint64_t, StringHash>;
  // Interned texts, back to back in blocks that never move (a run may intern a million kernel
  // names: issue 42).
  class TextArena {
   public:
    std::string_view keep(std::string_view text) {
      if (text.size() > capacity_ - used_) {
        capacity_ = std::max(kBlockBytes, text.size());
        blocks_.push_back(std::make_unique<char[]>(capacity_));
        used_ = 0;
      }
      char* at = blocks_.back().get() + used_;
      if (!text.empty()) std::memcpy(at, text.data(), text.size());
      used_ += text.size();
      return std::string_view(at, text.size());
    }

   private:
    static constexpr size_t kBlockBytes = size_t{64} << 10;
    std::vector<std::unique_ptr<char[]>> blocks_;
    size_t used_ = 0, capacity_ = 0;
  };
  // One interning index (a field of InternedData): by text as given, and by decoded text (so
  // that a name given both ways has one id).
  struct Index {
    uint32_t field;
    Interned by_text = {}, by_json = {};
    uint64_t next_iid = 1;
  };
  struct NewEntry {
    uint32_t field;
    uint64_t iid;
    std::string_view text;  // points into text_arena_, which outlives the packet
  };

  Process& process(int64_t pid);
  Track& row(int64_t pid, int64_t tid);
  Track& new_track(int64_t pid);
  void describe_process(int64_t pid, Process& p, std::string_view name, int64_t sort_index);
  void describe_row(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index,
                    bool os_thread);

  // Packets.
  size_t open_packet(int64_t at_ns, bool uses_interning);
  void close_packet(size_t packet);
  void slice(Track& track, std::string_view name, bool name_is_json, std::string_view category,
             bool category_is_json, int64_t begin_ns, int64_t end_ns, std::string_view args_json,
             const SliceFlows& flows);
  void event_head(uint32_t type, const Track& track, std::string_view name, bool name_is_json,
                  std::string_view category, bool category_is_json);
  void close_ended(Track& track,
                   int64_t at_ns);  // writes the ENDs of open slices that end by at_ns
  void write_end(const Track& track, const OpenSlice& open);
  void annotations(std::string_view args_json);
  void string_field(uint32_t field, std::string_view text, bool is_json);
  uint64_t intern(Index& index, std::string_view text,
                  bool is_json);  // the id, interned now if new
  uint64_t lookup(Index& index, std::string_view text, bool is_json);  // intern() without its cache
  void count(int64_t events, int64_t begin_ns, int64_t end_ns);
  void flush_if_full();
  uint64_t timestamp(int64_t ns);

  TextSink& sink_;
  int64_t origin_ns_;
  Options options_;
  protobuf_wire::ProtoBuffer out_;  // whole packets, written to the sink in chunks
  bool first_packet_ = true;
  // The last slice's BEGIN packet, still open (slice()); settle() closes it before anything else
  // is written.
  struct Pending {
    size_t packet = 0, event = 0;
    Track* track = nullptr;
    int64_t begin_ns = 0, end_ns = 0;
  };
  Pending pending_;
  std::vector<std::string> emit_after_;  // deferred packets settle() writes after the pending one
  void settle();
  uint64_t next_uuid_ = 1;
  uint64_t next_flow_id_ = 1;
  std::unordered_map<int64_t, Process> processes_;
  std::deque<Track> tracks_;  // a deque: references stay valid as tracks are added
  std::unordered_map<std::pair<int64_t, int64_t>, Track*, PairHash> rows_;
  std::pair<int64_t, int64_t> last_row_{INT64_MIN, INT64_MIN};
  Track* last_track_ = nullptr;
  std::map<std::tuple<int64_t, std::string>, std::vector<Track*>, std::less<>> async_tracks_;
  std::map<std::tuple<int64_t, std::string, std::string>, uint64_t, std::less<>> counter_tracks_;
  Index names_{2}, categories_{1},
      annotation_names_{3};  // InternedData event_names, event_categories, ...
  // The last strings interned, by where they were read from: the timeline passes the same
  // buffers (its quoted names, the args it rebuilds in place) for most events, so a pointer, a
  // length and a memcmp find the id without hashing the text. The text is compared, so a reused
  // buffer with other contents is only a miss.
  struct Recent {
    const char* data = nullptr;
    const Index* index = nullptr;
    bool is_json = false;
    uint64_t iid = 0;
    std::string text;
  };
  static constexpr size_t kRecentSlots = 256;
  std::vector<Recent> recent_ = std::vector<Recent>(kRecentSlots);
  TextArena text_arena_;
  std::vector<NewEntry> new_entries_;  // interned in the packet being written
  std::string scratch_;                // decoded text, reused
  std::string args_text_;              // a JsonObject's text, reused
  int64_t events_written_ = 0;
  int64_t min_ns_ = INT64_MAX, max_ns_ = INT64_MIN;
  int64_t flows_dropped_ = 0;
  int64_t times_clamped_ = 0;
  int64_t bytes_written_ = 0;
};

}  // namespace prof::report
