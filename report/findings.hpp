// `prof --analyze`: what to fix in a profiled run. Each rule (report/findings_rules.cpp) reads one
// process's calls, kernels and copies and says what it found, how much of the run it puts at
// stake (an estimate whose method is stated, never a guess shown as a measurement), the calls that
// cause it and the fix in one sentence. docs/findings.md defines every rule, its thresholds and the
// JSON form.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

inline constexpr int kFindingsVersion = 1;

// Where a finding comes from. Until call stacks are recorded (issue 43), a site is an API and the
// sequence numbers of its first few calls in the pattern.
struct FindingSite {
  std::string api;
  int64_t calls = 0;
  int64_t first_sequence = 0;
  std::vector<int64_t> sequences;  // the kSiteSequences calls weighing most, in call order
  std::string text;                // "hipMemcpy, calls #12, #15, #18 ... (40 calls)"
};

struct Finding {
  std::string rule, title;
  int64_t time_at_stake_ns = 0;
  double share = 0;    // time_at_stake_ns over the process's run span (the run's, across ranks)
  std::string method;  // how time_at_stake_ns was estimated
  int64_t count = 0;   // occurrences of the pattern (calls, gaps, kernels), as `title` says
  std::vector<FindingSite> sites;
  std::string evidence, fix;
  int64_t process_id = 0;  // of a merged db; 0 for a single-process db
  std::optional<int64_t> rank;
  int64_t pid = 0;
};

// The rules' thresholds (docs/findings.md gives each one's reason).
struct AnalyzeOptions {
  // A finding whose time at stake is under this share of its run is left out (api-errors never).
  double min_share = 0.001;
  // sync-after-launch: at least this many consecutive launches of one thread, each followed by a
  // wait before the next launch.
  int64_t sync_after_launch_min_launches = 10;
  // device-idle: gaps between the device work of one device at least this long.
  int64_t idle_gap_min_ns = 1'000'000;
  // launch-bound: at least this many consecutive kernels of one stream, each shorter than the
  // time from its launch to the next.
  int64_t launch_bound_min_kernels = 20;
  // alloc-churn: a buffer of one size freed and the same size allocated again at least this often.
  int64_t alloc_churn_min_allocations = 10;
  // small-copies: copies under small_copy_bytes, at least small_copy_min_count of them, whose
  // device time beyond their bytes at the run's best copy bandwidth is more than
  // small_copy_overhead_share of their device time.
  int64_t small_copy_bytes = 64 * 1024;
  int64_t small_copy_min_count = 50;
  double small_copy_overhead_share = 0.5;
  // serialized-stream: the device's other streams were busy at most this share of the stream's
  // own device time, inside the stream's span.
  double serialized_other_share = 0.1;
  // rank-imbalance: a rank whose value differs from the median rank's by more than this share.
  double rank_imbalance_share = 0.2;
};

struct ProcessSpan {
  int64_t process_id = 0;
  int64_t pid = 0;
  std::optional<int64_t> rank;
  int64_t begin_ns = 0, end_ns = 0;  // first call's begin, last call's end
};

struct Analysis {
  int64_t run_ns = 0;  // from the first call's begin to the last call's end, over every process
  std::vector<ProcessSpan> processes;
  std::vector<Finding> findings;  // longest time at stake first
};

// Every rule over every process of `db` (a single-process or a merged db), then the rules across
// processes. Throws DbError on a db it cannot read.
Analysis analyze(Database& db, const AnalyzeOptions& options);

// Sets one threshold from `--analyze-set NAME=VALUE` (report/findings_settings.cpp lists the
// names and their units). Returns "" when set, else what is wrong, for one line of error.
std::string set_analyze_option(AnalyzeOptions& options, const std::string& assignment);

enum class FindingsFormat { kText, kJson };
void write_findings(const Analysis& analysis, FindingsFormat format, TextSink& out);

// The largest share of its run any finding puts at stake (0 without findings): what
// `--analyze-fail-above` compares.
double largest_share(const Analysis& analysis);

// The findings as a run's outputs show them: the analysis, or why there is none (a note).
struct FindingsView {
  const Analysis* analysis = nullptr;
  std::string note;     // when analysis is null: why ("not analysed: ...")
  std::string command;  // the command that prints every finding: "prof --db x.db --analyze"
  std::string db_name;  // the db's file name, for the HTML page (which may travel without it)
};

// The HTML report's section: every finding in a table.
void write_findings_html(const FindingsView& view, TextSink& out);
// The terminal summary's block: the `most` with the longest time at stake, one site and the fix.
void write_findings_summary(const FindingsView& view, size_t most, TextSink& out);

}  // namespace prof::report
