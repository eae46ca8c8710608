#include "report/profile.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "report/demangle.hpp"
#include "report/json_escape.hpp"
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

using Key = std::tuple<std::string, std::string, std::string>;  // kind, runtime, name

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

void gather_apis(Database& db, const RowFilter& filter, std::map<Key, Gathered>& out) {
  std::map<int64_t, std::pair<std::string, std::string>> names;  // api_id -> runtime, name
  {
    Statement st = db.prepare(
        "SELECT n.api_id, COALESCE(r.name, ''), n.name FROM api_names n LEFT JOIN runtimes r ON r.runtime_id = "
        "n.runtime_id");
    while (st.step()) names[st.column_int(0)] = {std::string(st.column_text(1)), std::string(st.column_text(2))};
  }
  std::map<int64_t, Gathered*> by_id;
  Statement st = db.prepare("SELECT c.api_id, c.end_ns - c.begin_ns FROM api_calls c WHERE " + filter.api_condition("c"));
  filter.bind(st);
  while (st.step()) {
    int64_t id = st.column_int(0);
    Gathered*& g = by_id[id];
    if (!g) {
      auto it = names.find(id);
      Key key = it != names.end() ? Key{"api", it->second.first, it->second.second}
                                  : Key{"api", "", "unknown API " + std::to_string(id)};
      g = &out[key];
    }
    ++g->calls;
    g->durations.add(st.column_int(1));
  }
}

void gather_kernels(Database& db, const RowFilter& filter, std::map<Key, Gathered>& out) {
  std::map<int64_t, Gathered*> by_name;
  std::map<int64_t, Gathered*> by_address;
  Statement name = db.prepare("SELECT value FROM strings WHERE string_id = ?1");
  Statement st = db.prepare(
      "SELECT k.name_id, k.function_address, k.device_end_ns - k.device_begin_ns FROM kernels k WHERE " +
      filter.activity_condition("k"));
  filter.bind(st);
  while (st.step()) {
    bool named = !st.column_is_null(0);
    int64_t id = named ? st.column_int(0) : st.column_int(1);
    Gathered*& g = named ? by_name[id] : by_address[id];
    if (!g) {
      std::string text;
      if (named) {
        name.bind(1, id);
        text = name.step() ? demangle(name.column_text(0)) : "unknown kernel " + std::to_string(id);
        name.reset();
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "unknown kernel at 0x%llx", static_cast<unsigned long long>(id));
        text = buf;
      }
      g = &out[Key{"kernel", "", text}];
    }
    ++g->calls;
    if (!st.column_is_null(2)) g->durations.add(st.column_int(2));
  }
}

void gather_copies(Database& db, const RowFilter& filter, std::map<Key, Gathered>& out) {
  Statement st = db.prepare(
      "SELECT COALESCE(d.name, 'Direction ' || m.direction), m.bytes, m.device_end_ns - m.device_begin_ns"
      " FROM copies m LEFT JOIN copy_directions d ON d.direction = m.direction WHERE " +
      filter.activity_condition("m"));
  filter.bind(st);
  while (st.step()) {
    Gathered& g = out[Key{"copy", "", std::string(st.column_text(0))}];
    ++g.calls;
    g.bytes += st.column_int(1);
    if (!st.column_is_null(2)) g.durations.add(st.column_int(2));
  }
}

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

RunProfile profile_from_db(Database& db, const RowFilter& filter, const std::string& source) {
  RunProfile profile;
  profile.source = source;
  std::map<Key, Gathered> gathered;
  std::vector<SourceProcess> processes = read_processes(db);
  profile.processes = static_cast<int64_t>(processes.size());
  for (size_t i = 0; i < processes.size(); ++i) {
    select_process(db, processes[i].process_id);
    if (i == 0) {
      for (auto& [key, value] : read_meta(db)) {
        if (key == "run_id") profile.run_id = value;
        if (key == "pid" || key == "rank" || key == "host_name" || key == "command_line" || key == "run_id" ||
            key == "prof_version" || key == "wall_start_unix_ns")
          profile.meta.emplace_back(key, value);
      }
    }
    gather_apis(db, filter, gathered);
    gather_kernels(db, filter, gathered);
    gather_copies(db, filter, gathered);
  }
  for (auto& [key, g] : gathered) profile.entries.push_back(entry_of(key, g));
  std::sort(profile.entries.begin(), profile.entries.end(), entry_key_less);
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
    for (auto [field, into] : {std::pair{"kind", &e.kind}, {"runtime", &e.runtime}, {"name", &e.name}}) {
      const JsonValue* s = item.find(field);
      if (!s || !s->is_string()) throw bad(field);
      *into = s->string();
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
