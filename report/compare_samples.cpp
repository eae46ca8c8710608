#include "report/compare_samples.hpp"

#include <cstdio>
#include <memory>

#include "report/demangle.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"

namespace prof::report {

namespace {

// Names ids the way ProcessGatherer (report/profile.cpp) does, so both agree on every entry's key.
class DurationSampler final : public EventConsumer {
 public:
  DurationSampler(Database& db, std::map<EntryKey, CallSample>& out) : db_(db), out_(out) {
    Statement st = db.prepare(
        "SELECT n.api_id, COALESCE(r.name, ''), n.name FROM api_names n LEFT JOIN runtimes r ON r.runtime_id = "
        "n.runtime_id");
    while (st.step()) api_names_[st.column_int(0)] = {std::string(st.column_text(1)), std::string(st.column_text(2))};
    Statement d = db.prepare("SELECT direction, name FROM copy_directions");
    while (d.step()) direction_names_[d.column_int(0)] = d.column_text(1);
  }

  void api(const ApiRow& r) override {
    CallSample*& s = apis_[r.api_id];
    if (!s) {
      auto it = api_names_.find(r.api_id);
      s = &out_[it != api_names_.end() ? EntryKey{"api", it->second.first, it->second.second}
                                       : EntryKey{"api", "", "unknown API " + std::to_string(r.api_id)}];
    }
    s->add(r.end_ns - r.begin_ns);
  }

  void kernel(const KernelRow& r) override {
    if (!r.device_begin_ns || !r.device_end_ns) return;
    const int64_t id = r.name_id ? *r.name_id : r.function_address;
    CallSample*& s = r.name_id ? kernel_names_[id] : kernel_addresses_[id];
    if (!s) {
      std::string text;
      if (r.name) {
        text = *r.name;
      } else if (r.name_id) {
        Statement name = db_.prepare("SELECT value FROM strings WHERE string_id = ?1");
        name.bind(1, id);
        text = name.step() ? demangle(name.column_text(0)) : "unknown kernel " + std::to_string(id);
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "unknown kernel at 0x%llx", static_cast<unsigned long long>(id));
        text = buf;
      }
      s = &out_[EntryKey{"kernel", "", text}];
    }
    s->add(*r.device_end_ns - *r.device_begin_ns);
  }

  void copy(const CopyRow& r) override {
    if (!r.device_begin_ns || !r.device_end_ns) return;
    CallSample*& s = copies_[r.direction];
    if (!s) {
      auto it = direction_names_.find(r.direction);
      s = &out_[EntryKey{"copy", "", it != direction_names_.end() ? it->second
                                                                   : "Direction " + std::to_string(r.direction)}];
    }
    s->add(*r.device_end_ns - *r.device_begin_ns);
  }

 private:
  Database& db_;
  std::map<EntryKey, CallSample>& out_;
  std::map<int64_t, std::pair<std::string, std::string>> api_names_;
  std::map<int64_t, std::string> direction_names_;
  std::map<int64_t, CallSample*> apis_, kernel_names_, kernel_addresses_, copies_;
};

}  // namespace

void RunSamples::absorb(const RunSamples& other) {
  per_call = per_call && other.per_call;
  for (const auto& [key, sample] : other.entries) entries[key].absorb(sample);
}

RunProfile read_db_with_samples(const std::string& path, RunSamples& samples) {
  std::unique_ptr<Database> db = open_report_db(path);
  try {
    ProfileBuilder builder;
    std::vector<SourceProcess> processes = read_processes(*db);
    for (const SourceProcess& p : processes) {
      select_process(*db, p.process_id);
      EventConsumer& profile = builder.add_process(*db);
      DurationSampler sampler(*db, samples.entries);
      scan_events(*db, RowFilter{}, {&profile, &sampler});
    }
    RunProfile profile = builder.take(path);
    profile.processes = static_cast<int64_t>(processes.size());
    samples.per_call = true;
    return profile;
  } catch (const DbError& e) {
    throw as_report_error(e);
  }
}

}  // namespace prof::report
