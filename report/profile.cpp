#include "report/profile.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "report/demangle.hpp"
#include "report/duration_histogram.hpp"
#include "report/entry_slots.hpp"
#include "report/json_escape.hpp"
#include "report/json_value.hpp"
#include "report/kernel_names.hpp"
#include "report/merged_db.hpp"
#include "report/report_error.hpp"
#include "report/time_format.hpp"
#include "report/utf8.hpp"

namespace prof::report {

int64_t ProfileEntry::average_ns() const {
  return timed_calls > 0 ? rounded_div(total_ns, timed_calls) : 0;
}

bool entry_key_less(const ProfileEntry& a, const ProfileEntry& b) {
  return std::tie(a.kind, a.runtime, a.name) < std::tie(b.kind, b.runtime, b.name);
}

namespace {

using Key = EntryKey;  // kind, runtime, name

void write_profile_head(const RunProfile& profile, TextSink& out);
void write_profile_entry(const ProfileEntry& e, size_t index, TextSink& out);

struct Gathered {
  int64_t calls = 0, bytes = 0;
  DurationHistogram durations;
};

// Kernels named in one process, by the slot of its KernelNames.
struct NamedKernels {
  std::shared_ptr<const KernelNames> names;
  std::vector<Gathered> by_slot;
};

// Named kernels by name, the names viewed in KernelNames the builder keeps.
using KernelsByName = std::vector<std::pair<std::string_view, Gathered>>;

// One process's events into the run's entries (report/entry_slots.hpp names them). Kernels with
// a name are kept by slot (a vector, no string per name) until the process ends.
class ProcessGatherer final : public EventConsumer {
 public:
  ProcessGatherer(Database& db, std::map<Key, Gathered>& out,
                  std::shared_ptr<const KernelNames> names)
      : slots_(db, out) {
    kernels_.names = names ? std::move(names) : std::make_shared<const KernelNames>(db);
    kernels_.by_slot.resize(kernels_.names->size());
  }
  const std::shared_ptr<const KernelNames>& names() const { return kernels_.names; }

  void api(const ApiRow& r) override {
    Gathered& g = slots_.api(r);
    ++g.calls;
    g.durations.add(r.end_ns - r.begin_ns);
  }

  void kernel(const KernelRow& r) override {
    std::optional<size_t> slot = r.name_id ? kernels_.names->slot(*r.name_id) : std::nullopt;
    Gathered& g = slot ? kernels_.by_slot[*slot] : slots_.kernel(r);
    ++g.calls;
    if (r.device_begin_ns && r.device_end_ns)
      g.durations.add(*r.device_end_ns - *r.device_begin_ns);
  }

  void copy(const CopyRow& r) override {
    Gathered& g = slots_.copy(r);
    ++g.calls;
    g.bytes += r.bytes;
    if (r.device_begin_ns && r.device_end_ns)
      g.durations.add(*r.device_end_ns - *r.device_begin_ns);
  }

  // The named kernels, by name, into `into` (sorted by name, one entry per name).
  void fold_kernels(KernelsByName& into) {
    KernelsByName here;
    here.reserve(static_cast<size_t>(std::count_if(kernels_.by_slot.begin(), kernels_.by_slot.end(),
                                                   [](const Gathered& g) { return g.calls > 0; })));
    for (size_t slot = 0; slot < kernels_.by_slot.size(); ++slot) {
      if (kernels_.by_slot[slot].calls == 0) continue;
      here.emplace_back(kernels_.names->at_slot(slot), std::move(kernels_.by_slot[slot]));
    }
    kernels_.by_slot = {};
    auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(here.begin(), here.end(), by_name);
    if (!into.empty()) {  // a later process of a merged db: one list by name (no copy for the
                          // first)
      KernelsByName merged;
      merged.reserve(into.size() + here.size());
      std::merge(std::make_move_iterator(into.begin()), std::make_move_iterator(into.end()),
                 std::make_move_iterator(here.begin()), std::make_move_iterator(here.end()),
                 std::back_inserter(merged), by_name);
      here = std::move(merged);
    }
    // Two string ids (or processes) may share a name: one entry, as the map by name gave.
    size_t kept = 0;
    for (size_t i = 0; i < here.size(); ++i) {
      if (kept > 0 && here[kept - 1].first == here[i].first) {
        Gathered& g = here[kept - 1].second;
        g.calls += here[i].second.calls;
        g.bytes += here[i].second.bytes;
        g.durations.absorb(here[i].second.durations);
      } else if (kept++ != i) {
        here[kept - 1] = std::move(here[i]);
      }
    }
    here.resize(kept);
    into = std::move(here);
  }

 private:
  EntrySlots<Gathered> slots_;
  NamedKernels kernels_;
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
  KernelsByName kernels;                                  // named kernels, by name
  std::vector<std::shared_ptr<const KernelNames>> names;  // what `kernels` views
  std::unique_ptr<ProcessGatherer> current;
};

void ProfileBuilder::end_process() {
  if (!state_->current) return;
  state_->names.push_back(state_->current->names());
  state_->current->fold_kernels(state_->kernels);
  state_->current.reset();
}

ProfileBuilder::ProfileBuilder() : state_(std::make_unique<State>()) {
  state_->profile.processes = 0;
}
ProfileBuilder::~ProfileBuilder() = default;

EventConsumer& ProfileBuilder::add_process(Database& db, std::shared_ptr<const KernelNames> names) {
  end_process();
  RunProfile& profile = state_->profile;
  if (profile.processes++ == 0) {
    for (auto& [key, value] : read_meta(db)) {
      if (key == "run_id") profile.run_id = value;
      if (key == "pid" || key == "rank" || key == "host_name" || key == "command_line" ||
          key == "run_id" || key == "prof_version" || key == "wall_start_unix_ns")
        profile.meta.emplace_back(key, value);
    }
  }
  state_->current = std::make_unique<ProcessGatherer>(db, state_->gathered, std::move(names));
  return *state_->current;
}

namespace {

// Every entry in key order, one at a time (the map's and the named kernels' merged), its
// numbers freed as it goes: no list of every entry at once.
void each_entry(std::map<Key, Gathered>& gathered, KernelsByName& kernels,
                const std::function<void(const ProfileEntry&)>& fn) {
  auto next = gathered.begin();
  for (auto& [name, g] : kernels) {
    Key key{"kernel", "", std::string(name)};
    for (; next != gathered.end() && next->first < key; ++next)
      fn(entry_of(next->first, next->second));
    if (next != gathered.end() &&
        next->first == key) {  // an unnamed kernel's text, given as a name too
      g.calls += next->second.calls;
      g.bytes += next->second.bytes;
      g.durations.absorb(next->second.durations);
      ++next;
    }
    fn(entry_of(key, g));
    g = Gathered{};
  }
  for (; next != gathered.end(); ++next) fn(entry_of(next->first, next->second));
  kernels = {};
}

}  // namespace

RunProfile ProfileBuilder::take(const std::string& source) {
  end_process();
  RunProfile profile = std::move(state_->profile);
  profile.source = source;
  profile.entries.reserve(state_->gathered.size() + state_->kernels.size());
  each_entry(state_->gathered, state_->kernels,
             [&](const ProfileEntry& e) { profile.entries.push_back(e); });
  state_ = std::make_unique<State>();
  state_->profile.processes = 0;
  return profile;
}

void ProfileBuilder::write_json(TextSink& out, const EntryVisitor& visit) {
  end_process();
  write_profile_head(state_->profile, out);
  size_t i = 0;
  each_entry(state_->gathered, state_->kernels, [&](const ProfileEntry& e) {
    write_profile_entry(e, i++, out);
    if (visit) visit(e);
  });
  out.write("\n]}\n");
  state_ = std::make_unique<State>();
  state_->profile.processes = 0;
}

void ProfileBuilder::visit(const EntryVisitor& visit) {
  end_process();
  each_entry(state_->gathered, state_->kernels, visit);
  state_ = std::make_unique<State>();
  state_->profile.processes = 0;
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

namespace {

void write_profile_head(const RunProfile& profile, TextSink& out) {
  std::string text = std::string(kSummarySignature) + std::to_string(kSummaryVersion);
  text += ",\"processes\":" + std::to_string(profile.processes) +
          ",\"run_id\":" + json_string(profile.run_id);
  text += ",\"meta\":{";
  for (size_t i = 0; i < profile.meta.size(); ++i) {
    text += (i ? "," : "") + json_string(profile.meta[i].first) + ":" +
            json_string(profile.meta[i].second);
  }
  text += "},\n\"entries\":[";
  out.write(text);
}

void write_profile_entry(const ProfileEntry& e, size_t index, TextSink& out) {
  std::string text = index ? ",\n" : "\n";
  text += "{\"kind\":" + json_string(e.kind) + ",\"runtime\":" + json_string(e.runtime) +
          ",\"name\":" + json_string(e.name) + ",\"calls\":" + std::to_string(e.calls) +
          ",\"timed_calls\":" + std::to_string(e.timed_calls) +
          ",\"total_ns\":" + std::to_string(e.total_ns) +
          ",\"average_ns\":" + std::to_string(e.average_ns()) +
          ",\"median_ns\":" + std::to_string(e.median_ns) +
          ",\"p95_ns\":" + std::to_string(e.p95_ns) + ",\"min_ns\":" + std::to_string(e.min_ns) +
          ",\"max_ns\":" + std::to_string(e.max_ns) + ",\"bytes\":" + std::to_string(e.bytes) + "}";
  out.write(text);
}

}  // namespace

void write_profile_json(const RunProfile& profile, TextSink& out) {
  write_profile_head(profile, out);
  for (size_t i = 0; i < profile.entries.size(); ++i)
    write_profile_entry(profile.entries[i], i, out);
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
  if (!v || !v->integer(version))
    throw ReportError(path + ": not a prof run summary (no \"prof_summary\" version)");
  if (version < 1 || version > kSummaryVersion)
    throw ReportError(path + ": run summary version " + std::to_string(version) +
                      " is newer than this prof reads (" + std::to_string(kSummaryVersion) + ")");
  RunProfile profile;
  profile.source = path;
  if (const JsonValue* run = doc.find("run_id"); run && run->is_string())
    profile.run_id = run->string();
  if (const JsonValue* n = doc.find("processes")) n->integer(profile.processes);
  if (const JsonValue* meta = doc.find("meta"); meta && meta->is_object()) {
    for (const char* key : {"pid", "rank", "host_name", "command_line", "run_id", "prof_version",
                            "wall_start_unix_ns"})
      if (const JsonValue* m = meta->find(key); m && m->is_string())
        profile.meta.emplace_back(key, m->string());
  }
  const JsonValue* entries = doc.find("entries");
  if (!entries || !entries->is_array())
    throw ReportError(path + ": run summary without an \"entries\" array");
  size_t index = 0;
  for (const JsonValue& item : entries->elements()) {
    ++index;
    auto bad = [&](const char* field) {
      return ReportError(path + ": entry " + std::to_string(index) + ": missing or malformed \"" +
                         field + "\"");
    };
    ProfileEntry e;
    // Names were written escaped (report/utf8.hpp): read back to the bytes a database holds, so
    // a summary compares with a database, and two names that differ only in stray bytes stay two.
    for (auto [field, into] :
         {std::pair{"kind", &e.kind}, {"runtime", &e.runtime}, {"name", &e.name}}) {
      const JsonValue* s = item.find(field);
      if (!s || !s->is_string()) throw bad(field);
      *into = utf8_unescaped(s->string());
    }
    if (e.kind != "api" && e.kind != "kernel" && e.kind != "copy")
      throw ReportError(path + ": entry " + std::to_string(index) + ": unknown kind \"" + e.kind +
                        "\"");
    for (auto [field, into] : {std::pair{"calls", &e.calls},
                               {"timed_calls", &e.timed_calls},
                               {"total_ns", &e.total_ns},
                               {"median_ns", &e.median_ns},
                               {"p95_ns", &e.p95_ns},
                               {"min_ns", &e.min_ns},
                               {"max_ns", &e.max_ns},
                               {"bytes", &e.bytes}}) {
      const JsonValue* n = item.find(field);
      if (!n || !n->integer(*into) || *into < 0) throw bad(field);
    }
    profile.entries.push_back(std::move(e));
  }
  std::sort(profile.entries.begin(), profile.entries.end(), entry_key_less);
  return profile;
}

}  // namespace prof::report
