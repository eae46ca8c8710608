// A run's profile in numbers: per API function (of each runtime), per kernel name and per copy
// direction, the calls, total, average, median, p95, min and max. It is what `prof --compare`
// compares and what <base>.summary.json holds (docs/formats.md, "Run summary JSON"), so CI can
// archive a run's numbers without its database.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/report_db.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

class KernelNames;  // report/kernel_names.hpp

inline constexpr int kSummaryVersion = 1;
inline constexpr std::string_view kSummarySignature = "{\"prof_summary\":";

struct ProfileEntry {
  std::string kind;         // "api", "kernel" or "copy"
  std::string runtime;      // the API's runtime ("hip"); "" for kernels and copies
  std::string name;         // API name, demangled kernel name, or copy direction ("H2D", "Memset")
  int64_t calls = 0;        // every call, launch or copy, timed or not
  int64_t timed_calls = 0;  // those with a duration
  int64_t total_ns = 0;
  int64_t min_ns = 0, max_ns = 0;     // exact; 0 without timed calls
  int64_t median_ns = 0, p95_ns = 0;  // nearest rank; within 0.8% (see profile.cpp), mostly exact
  int64_t bytes = 0;                  // copies: bytes moved

  int64_t average_ns() const;
  bool same_key(const ProfileEntry& o) const {
    return kind == o.kind && runtime == o.runtime && name == o.name;
  }
};

// Entries sort by kind ("api" < "copy" < "kernel"), runtime, then name (bytewise).
bool entry_key_less(const ProfileEntry& a, const ProfileEntry& b);

struct RunProfile {
  std::string source;  // the file it was read from
  // Which run the profile belongs to: the processes of one prof invocation (or one MPI job) share
  // it.
  // "" when unknown (a database written before prof recorded it): the profile is a run of its own.
  std::string run_id;
  int64_t processes = 1;
  std::vector<std::pair<std::string, std::string>> meta;  // pid, rank, host_name, command_line, ...
  std::vector<ProfileEntry> entries;                      // in entry_key_less order
};

// The profile of every process of an open, checked database (single or merged).
RunProfile profile_from_db(Database& db, const RowFilter& filter, const std::string& source);

// profile_from_db fed by the report's one pass over the events (report/event_pass.hpp): for each
// process, select it, then feed add_process's consumer (valid until the next add_process or
// take) the process's events; take() gives the profile of them all. `names` are the process's
// kernel names (nullptr: read them); the builder keeps them until take, its entries view them.
class ProfileBuilder {
 public:
  ProfileBuilder();
  ~ProfileBuilder();
  EventConsumer& add_process(Database& db, std::shared_ptr<const KernelNames> names = nullptr);
  void end_process();
  RunProfile take(const std::string& source);
  // take() written as <base>.summary.json (write_profile_json) an entry at a time: a run of a
  // million kernel names never holds a list of them all (issue 42). `visit` sees each entry as it
  // is written: the statistics tables take their median and p95 from it
  // (report/stats_quantiles.hpp) rather than keeping histograms of their own.
  using EntryVisitor = std::function<void(const ProfileEntry&)>;
  void write_json(TextSink& out, const EntryVisitor& visit = {});
  // The entries, an entry at a time, without writing them (a summary without its JSON file).
  void visit(const EntryVisitor& visit);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// <base>.summary.json: {"prof_summary": 1, ...}; docs/formats.md documents every field.
void write_profile_json(const RunProfile& profile, TextSink& out);
// Reads a summary file; throws ReportError naming `path` and what is wrong.
RunProfile read_profile_json(const std::string& path);

}  // namespace prof::report
