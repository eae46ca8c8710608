// Every call's duration, as `prof --compare` tests them: a db read once for both its profile
// (report/profile.hpp) and, per entry, a bounded sample of its calls' durations
// (compare_stats.hpp).
#pragma once
#include <map>
#include <string>
#include <tuple>

#include "report/compare_stats.hpp"
#include "report/entry_slots.hpp"
#include "report/profile.hpp"

namespace prof::report {

// One run's durations per entry. `per_call` is false for a run read from run summaries, which hold
// only each entry's numbers: such a run is judged by the totals rule (docs/compare.md).
struct RunSamples {
  bool per_call = false;
  std::map<EntryKey, CallSample> entries;
  void absorb(const RunSamples& other);
};

// The profile of every process of a checked db (as profile_from_db) and, in the same pass over its
// events, its durations: API calls host end - begin, kernels and copies device end - begin (the
// entries' keys are the profile's). Throws ReportError naming `path`.
RunProfile read_db_with_samples(const std::string& path, RunSamples& samples);

}  // namespace prof::report
