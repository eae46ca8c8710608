#include "report/compare_samples.hpp"

#include <cstdio>
#include <memory>

#include "report/demangle.hpp"
#include "report/entry_slots.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"

namespace prof::report {

namespace {

// Each call's duration into its entry, named as report/profile.cpp names it (entry_slots.hpp).
class DurationSampler final : public EventConsumer {
 public:
  DurationSampler(Database& db, std::map<EntryKey, CallSample>& out) : slots_(db, out) {}

  void api(const ApiRow& r) override { slots_.api(r).add(r.end_ns - r.begin_ns); }

  void kernel(const KernelRow& r) override {
    if (!r.device_begin_ns || !r.device_end_ns) return;
    slots_.kernel(r).add(*r.device_end_ns - *r.device_begin_ns);
  }

  void copy(const CopyRow& r) override {
    if (!r.device_begin_ns || !r.device_end_ns) return;
    slots_.copy(r).add(*r.device_end_ns - *r.device_begin_ns);
  }

 private:
  EntrySlots<CallSample> slots_;
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
