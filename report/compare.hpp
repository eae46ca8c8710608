// `prof --compare BASE NEW`: two profiles (dbs, run summaries, or folders of either) compared entry
// by entry (API function, kernel, copy direction), with a verdict a CI job can fail on.
// docs/compare.md describes the rules and the JSON schema.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/compare_samples.hpp"
#include "report/compare_stats.hpp"
#include "report/profile.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

inline constexpr int kCompareVersion = 1;

struct CompareOptions {
  double threshold = 0.05;       // a total must grow by more than this fraction of the base's
  int64_t min_time_ns = 10'000;  // entries whose total is under this on both sides are ignored
  bool check_calls = true;       // a change in call count is a regression
};

// One side: the runs read from a path. A folder's dbs (or, with no db in it, its *.summary.json
// files) are grouped into runs by their run id; a db or summary without one is a run of its own.
struct Side {
  std::string path;
  std::vector<std::string> files;   // what was read, in name order
  std::vector<RunProfile> runs;     // one combined profile per run
  std::vector<RunSamples> samples;  // per run: its calls' durations (dbs), or none (run summaries)
};

// Throws ReportMissingInput / ReportError naming the path and what is wrong.
Side load_side(const std::string& path);

// An entry's numbers on one side: means over the side's runs (a run without the entry counts 0),
// and the spread of the runs' totals and calls.
struct SideStats {
  bool present = false;  // in at least one run
  int64_t calls = 0, total_ns = 0, average_ns = 0, median_ns = 0, p95_ns = 0, min_ns = 0,
          max_ns = 0, bytes = 0;
  int64_t total_low = 0, total_high = 0, calls_low = 0, calls_high = 0;
  int64_t median_low = 0, median_high = 0;  // the runs' medians (runs with the entry)
  int64_t tested = 0;                       // durations in the rank test (a sample of at most
                                            // kCallSampleCapacity per run and entry)
};

// The rule's constants (docs/compare.md, "The rule").
inline constexpr double kHostFamilyAlpha =
    0.01;  // false alarms over all host-timed entries together
inline constexpr double kDeviceAlpha =
    0.05;  // per device-timed entry: device clocks see no host load
inline constexpr double kDeviceTestMargin =
    10;  // the device test needs launches enough for p < alpha / this
inline constexpr int64_t kHostMedianFloorNs =
    50;  // a host median moves by less between runs of a loaded
         // machine (clock steps, caches, CPU frequency)
// With one run on a side, run-to-run noise cannot be measured, and on a loaded machine it moves a
// host-timed entry's median call up to 2.8x between identical runs (docs/compare.md): the median
// must grow (or shrink) by more than this factor.
inline constexpr double kOneRunHostFactor = 4.0;

enum class CompareStatus { kRegressed, kImproved, kUnchanged, kNew, kVanished, kIgnored };
const char* status_name(CompareStatus status);

struct CompareRow {
  std::string kind, runtime, name;
  SideStats base, now;
  int64_t delta_ns = 0;  // now.total_ns - base.total_ns
  CompareStatus status = CompareStatus::kUnchanged;
  bool regression = false;
  std::string reason;     // why it is flagged (or ignored), for people
  bool per_call = false;  // judged by its calls' durations (dbs on both sides), not the totals rule
  bool device_timed = false;  // a kernel or copy: durations from the device's clock
  RankTest test;              // when per_call
  double alpha = 0;           // the level test.p_greater (or p_less) had to pass; when per_call
  bool testable = false;      // enough durations for the test to reach alpha at all
};

struct Comparison {
  CompareOptions options;
  std::string base_path, new_path;
  int64_t base_runs = 0, new_runs = 0;
  std::vector<CompareRow> rows;  // regressions first by name, then by |delta| descending
  int64_t regressions = 0;
  bool per_call = false;       // every run of both sides holds per-call durations (dbs)
  int64_t host_tests = 0;      // host-timed entries rank-tested: the Bonferroni divisor
  double host_alpha_each = 0;  // kHostFamilyAlpha / host_tests
};

Comparison compare_sides(const Side& base, const Side& now, const CompareOptions& options);

enum class CompareFormat { kText, kCsv, kJson, kMarkdown };
void write_comparison(const Comparison& comparison, CompareFormat format, TextSink& out);

}  // namespace prof::report
