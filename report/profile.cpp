#include "report/profile.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "report/demangle.hpp"
#include "report/entry_slots.hpp"
#include "report/json_escape.hpp"
#include "report/utf8.hpp"
#include "report/json_value.hpp"
#include "report/merged_db.hpp"
#include "report/report_error.hpp"
#include "report/time_format.hpp"

namespace prof::report {

int64_t ProfileEntry::average_ns() const { return timed_calls > 0 ? rounded_div(total_ns, timed_calls) : 0; }

bool entry_key_less(const ProfileEntry& a, const ProfileEntry& b) {
  return std::tie(a.kind, a.runtime, a.name) < std::tie(b.kind, b.runtime, b.name);
}

namespace {

using Key = EntryKey;  // kind, runtime, name

// Durations kept as a log-linear histogram, so memory stays flat however many calls the db
// holds: exact below 256 ns, then 128 buckets per power of two (a bucket spans at most 1/128 of
// its start). Each bucket keeps its count and its smallest and largest duration, so a percentile is
// exact when its bucket holds one value (deterministic durations) or it is the bucket's first or
// last, and within 0.8% otherwise (interpolated). Total, min and max are exact.
class DurationHistogram {
 public:
  void add(int64_t ns) {
    Bucket& b = buckets_[key(ns < 0 ? 0 : static_cast<uint64_t>(ns))];
    b.low = b.count == 0 ? ns : std::min(b.low, ns);
    b.high = b.count == 0 ? ns : std::max(b.high, ns);
    ++b.count;
    ++count_;
    total_ += ns;
    low_ = count_ == 1 ? ns : std::min(low_, ns);
    high_ = count_ == 1 ? ns : std::max(high_, ns);
  }
  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  int64_t low() const { return low_; }
  int64_t high() const { return high_; }
  // Nearest rank: the value at rank ceil(p/100 * n).
  int64_t percentile(int percent) const {
    if (count_ == 0) return 0;
    const int64_t rank = std::max<int64_t>(1, (static_cast<int64_t>(percent) * count_ + 99) / 100);
    int64_t before = 0;
    for (const auto& [k, b] : buckets_) {
      if (before + b.count >= rank) {
        const int64_t position = rank - before;  // 1..count within the bucket
        if (position == 1 || b.count == 1) return b.low;
        if (position == b.count) return b.high;
        return b.low + static_cast<int64_t>(static_cast<double>(b.high - b.low) * static_cast<double>(position - 1) /
                                            static_cast<double>(b.count - 1));
      }
      before += b.count;
    }
    return high_;
  }

 private:
  struct Bucket {
    int64_t count = 0, low = 0, high = 0;
  };
  static uint32_t key(uint64_t v) {
    if (v < 256) return static_cast<uint32_t>(v);
    const int shift = 64 - __builtin_clzll(v) - 8;  // v >> shift is in [128, 255]
    return 256 + static_cast<uint32_t>(shift - 1) * 128 + static_cast<uint32_t>((v >> shift) - 128);
  }
  std::map<uint32_t, Bucket> buckets_;
  int64_t count_ = 0, total_ = 0, low_ = 0, high_ = 0;
};

struct Gathered {
  int64_t calls = 0, bytes = 0;
  DurationHistogram durations;
};

// One process's events into the run's entries (report/entry_slots.hpp names them).
class ProcessGatherer final : public EventConsumer {
 public:
  ProcessGatherer(Database& db, std::map<Key, Gathered>& out) : slots_(db, out) {}

  void api(const ApiRow& r) override {
    Gathered& g = slots_.api(r);
    ++g.calls;
    g.durations.add(r.end_ns - r.begin_ns);
  }

  void kernel(const KernelRow& r) override {
    Gathered& g = slots_.kernel(r);
    ++g.calls;
    if (r.device_begin_ns && r.device_end_ns) g.durations.add(*r.device_end_ns - *r.device_begin_ns);
  }

  void copy(const CopyRow& r) override {
    Gathered& g = slots_.copy(r);
    ++g.calls;
    g.bytes += r.bytes;
    if (r.device_begin_ns && r.device_end_ns) g.durations.add(*r.device_end_ns - *r.device_begin_ns);
  }

 private:
  EntrySlots<Gathered> slots_;
};

ProfileEntry entry_of(const Key& key, const Gathered& g) {
  ProfileEntry e;
  std::tie(e.kind, e.runtime, e.name) = key;
  e.calls = g.calls;
  e.bytes = g.bytes;
  const DurationHistogram& d = g.durations;
  e.timed_calls = d.count();
  e.total_ns = d.total();
  if (d.count() > 0) {
    e.min_ns = d.low();
    e.max_ns = d.high();
    e.median_ns = d.percentile(50);
    e.p95_ns = d.percentile(95);
  }
  return e;
}

}  // namespace

struct ProfileBuilder::State {
  RunProfile profile;
  std::map<Key, Gathered> gathered;
  std::unique_ptr<ProcessGatherer> current;
};

ProfileBuilder::ProfileBuilder() : state_(std::make_unique<State>()) { state_->profile.processes = 0; }
ProfileBuilder::~ProfileBuilder() = default;

EventConsumer& ProfileBuilder::add_process(Database& db) {
  RunProfile& profile = state_->profile;
  if (profile.processes++ == 0) {
    for (auto& [key, value] : read_meta(db)) {
      if (key == "run_id") profile.run_id = value;
      if (key == "pid" || key == "rank" || key == "host_name" || key == "command_line" || key == "run_id" ||
          key == "prof_version" || key == "wall_start_unix_ns")
        profile.meta.emplace_back(key, value);
    }
  }
  state_->current = std::make_unique<ProcessGatherer>(db, state_->gathered);
  return *state_->current;
}

RunProfile ProfileBuilder::take(const std::string& source) {
  state_->current.reset();
  RunProfile profile = std::move(state_->profile);
  profile.source = source;
  for (auto& [key, g] : state_->gathered) profile.entries.push_back(entry_of(key, g));
  std::sort(profile.entries.begin(), profile.entries.end(), entry_key_less);
  state_ = std::make_unique<State>();
  state_->profile.processes = 0;
  return profile;
}

RunProfile profile_from_db(Database& db, const RowFilter& filter, const std::string& source) {
  ProfileBuilder builder;
  std::vector<SourceProcess> processes = read_processes(db);
  for (const SourceProcess& p : processes) {
    select_process(db, p.process_id);
    scan_events(db, filter, {&builder.add_process(db)});
  }
  RunProfile profile = builder.take(source);
  profile.processes = static_cast<int64_t>(processes.size());
  return profile;
}

void write_profile_json(const RunProfile& profile, TextSink& out) {
  std::string text = std::string(kSummarySignature) + std::to_string(kSummaryVersion);
  text += ",\"processes\":" + std::to_string(profile.processes) + ",\"run_id\":" + json_string(profile.run_id);
  text += ",\"meta\":{";
  for (size_t i = 0; i < profile.meta.size(); ++i) {
    text += (i ? "," : "") + json_string(profile.meta[i].first) + ":" + json_string(profile.meta[i].second);
  }
  text += "},\n\"entries\":[";
  out.write(text);
  for (size_t i = 0; i < profile.entries.size(); ++i) {
    const ProfileEntry& e = profile.entries[i];
    text = i ? ",\n" : "\n";
    text += "{\"kind\":" + json_string(e.kind) + ",\"runtime\":" + json_string(e.runtime) +
            ",\"name\":" + json_string(e.name) + ",\"calls\":" + std::to_string(e.calls) +
            ",\"timed_calls\":" + std::to_string(e.timed_calls) + ",\"total_ns\":" + std::to_string(e.total_ns) +
            ",\"average_ns\":" + std::to_string(e.average_ns()) + ",\"median_ns\":" + std::to_string(e.median_ns) +
            ",\"p95_ns\":" + std::to_string(e.p95_ns) + ",\"min_ns\":" + std::to_string(e.min_ns) +
            ",\"max_ns\":" + std::to_string(e.max_ns) + ",\"bytes\":" + std::to_string(e.bytes) + "}";
    out.write(text);
  }
  out.write("\n]}\n");
}

RunProfile read_profile_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportMissingInput(path + ": cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  JsonValue doc;
  try {
    doc = JsonValue::parse(text);
  } catch (const std::exception& e) {
    throw ReportError(path + ": not a prof run summary (" + e.what() + ")");
  }
  int64_t version = 0;
  const JsonValue* v = doc.is_object() ? doc.find("prof_summary") : nullptr;
  if (!v || !v->integer(version)) throw ReportError(path + ": not a prof run summary (no \"prof_summary\" version)");
  if (version < 1 || version > kSummaryVersion)
    throw ReportError(path + ": run summary version " + std::to_string(version) + " is newer than this prof reads (" +
                      std::to_string(kSummaryVersion) + ")");
  RunProfile profile;
  profile.source = path;
  if (const JsonValue* run = doc.find("run_id"); run && run->is_string()) profile.run_id = run->string();
  if (const JsonValue* n = doc.find("processes")) n->integer(profile.processes);
  if (const JsonValue* meta = doc.find("meta"); meta && meta->is_object()) {
    for (const char* key : {"pid", "rank", "host_name", "command_line", "run_id", "prof_version", "wall_start_unix_ns"})
      if (const JsonValue* m = meta->find(key); m && m->is_string()) profile.meta.emplace_back(key, m->string());
  }
  const JsonValue* entries = doc.find("entries");
  if (!entries || !entries->is_array()) throw ReportError(path + ": run summary without an \"entries\" array");
  size_t index = 0;
  for (const JsonValue& item : entries->elements()) {
    ++index;
    auto bad = [&](const char* field) {
      return ReportError(path + ": entry " + std::to_string(index) + ": missing or malformed \"" + field + "\"");
    };
    ProfileEntry e;
    // Names were written escaped (report/utf8.hpp): read back to the bytes a database holds, so
    // a summary compares with a database, and two names that differ only in stray bytes stay two.
    for (auto [field, into] : {std::pair{"kind", &e.kind}, {"runtime", &e.runtime}, {"name", &e.name}}) {
      const JsonValue* s = item.find(field);
      if (!s || !s->is_string()) throw bad(field);
      *into = utf8_unescaped(s->string());
    }
    if (e.kind != "api" && e.kind != "kernel" && e.kind != "copy")
      throw ReportError(path + ": entry " + std::to_string(index) + ": unknown kind \"" + e.kind + "\"");
    for (auto [field, into] : {std::pair{"calls", &e.calls}, {"timed_calls", &e.timed_calls}, {"total_ns", &e.total_ns},
                               {"median_ns", &e.median_ns}, {"p95_ns", &e.p95_ns}, {"min_ns", &e.min_ns},
                               {"max_ns", &e.max_ns}, {"bytes", &e.bytes}}) {
      const JsonValue* n = item.find(field);
      if (!n || !n->integer(*into) || *into < 0) throw bad(field);
    }
    profile.entries.push_back(std::move(e));
  }
  std::sort(profile.entries.begin(), profile.entries.end(), entry_key_less);
  return profile;
}

}  // namespace prof::report
