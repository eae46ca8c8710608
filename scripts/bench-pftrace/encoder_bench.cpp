// Which protobuf encoder writes <base>.pftrace (docs/design-reports.md, "Timelines"): Debian's
// libprotobuf with generated code, or prof's own wire encoder (report/protobuf_wire.hpp through
// PftraceWriter).
// Both write the packets of N kernel slices; best of 5 repeats. Run by scripts/bench-pftrace.sh.
// libprotobuf side: the same packets PftraceWriter writes for a slice (BEGIN with 4 int
// annotations, interned name/category, one flow id; END), serialized packet by packet into one buffer.
#include <google/protobuf/stubs/common.h>

#include <chrono>
#include <cstdio>
#include <string>
#include "trace_subset.pb.h"
#include "report/pftrace_writer.hpp"
#include "report/text_sink.hpp"
using namespace prof::report;
struct CountSink final : TextSink { size_t n = 0; void write(std::string_view t) override { n += t.size(); } };
int main(int argc, char** argv) {
  const int64_t N = argc > 1 ? atoll(argv[1]) : 2000000;
  double best_pb = 1e9, best_own = 1e9; size_t pb_bytes = 0, own_bytes = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::string out, buf; out.reserve(1 << 16);
    mini::TracePacket p;
    size_t total = 0;
    std::string args0;
    for (int64_t i = 0; i < N; ++i) {
      args0 = "{\"grid\":" + std::to_string(i * 3) + ",\"block\":" + std::to_string(i * 3 + 1) + ",\"stream\":" +
             std::to_string(i * 3 + 2) + ",\"correlation_id\":" + std::to_string(i * 3 + 3) + "}";
      if (args0.empty()) return 1;
      p.Clear();
      p.set_timestamp(1000 + i * 100);
      p.set_trusted_packet_sequence_id(1);
      p.set_sequence_flags(2);
      auto* e = p.mutable_track_event();
      e->set_type(1); e->set_track_uuid(7 + (i & 3)); e->set_name_iid(1 + (i & 7)); e->add_category_iids(1);
      for (int a = 0; a < 4; ++a) { auto* d = e->add_debug_annotations(); d->set_name_iid(a + 1); d->set_int_value(i * 3 + a); }
      e->add_flow_ids_old(i + 1);
      buf.clear(); p.SerializeToString(&buf);
      out.push_back('\x0a'); { uint64_t v = buf.size(); while (v >= 0x80) { out.push_back(char(v | 0x80)); v >>= 7; } out.push_back(char(v)); }
      out += buf;
      p.Clear(); p.set_timestamp(1000 + i * 100 + 50); p.set_trusted_packet_sequence_id(1);
      auto* f = p.mutable_track_event(); f->set_type(2); f->set_track_uuid(7 + (i & 3));
      buf.clear(); p.SerializeToString(&buf);
      out.push_back('\x0a'); { uint64_t v = buf.size(); while (v >= 0x80) { out.push_back(char(v | 0x80)); v >>= 7; } out.push_back(char(v)); }
      out += buf;
      if (out.size() > (64u << 10)) { total += out.size(); out.clear(); }
    }
    total += out.size();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best_pb) { best_pb = s; pb_bytes = total; }
    // prof's encoder through PftraceWriter (interning, track bookkeeping, held-back ENDs included).
    t0 = std::chrono::steady_clock::now();
    CountSink sink;
    PftraceWriter w(sink, 0);
    w.begin();
    for (int t = 0; t < 4; ++t) w.thread_name(1, t, "Stream", t);
    std::string args;
    for (int64_t i = 0; i < N; ++i) {
      args = "{\"grid\":" + std::to_string(i * 3) + ",\"block\":" + std::to_string(i * 3 + 1) + ",\"stream\":" +
             std::to_string(i * 3 + 2) + ",\"correlation_id\":" + std::to_string(i * 3 + 3) + "}";
      static const char* names[8] = {"\"k0\"", "\"k1\"", "\"k2\"", "\"k3\"", "\"k4\"", "\"k5\"", "\"k6\"", "\"k7\""};
      uint64_t id = i + 1;
      w.complete_raw(1, i & 3, names[i & 7], "\"kernel\"", 1000 + i * 100, 1000 + i * 100 + 50, args,
                     SliceFlows{std::span<const uint64_t>(&id, 1), {}});
    }
    w.end();
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best_own) { best_own = s; own_bytes = sink.n; }
  }
  std::printf("| encoder | slices/s | bytes/slice |\n|---|---|---|\n");
  std::printf("| libprotobuf %s (generated, SerializeToString per packet; no interning, args not parsed) | %.2fM | %.1f |\n", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION).c_str(), N / best_pb / 1e6, double(pb_bytes) / N);
  std::printf("| prof's wire encoder (PftraceWriter: interning, tracks, JSON args parsed) | %.2fM | %.1f |\n", N / best_own / 1e6, double(own_bytes) / N);
}
