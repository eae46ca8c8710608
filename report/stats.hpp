// Per-name duration statistics (the rows of the per-runtime API CSVs and the .kernel.csv file and
// of the summary tables), added up in one pass over the events; the report holds one small record
// per distinct name.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/kernel_names.hpp"
#include "report/report_db.hpp"

namespace prof::report {

struct NameStats {
  std::string name;   // API name, or the demangled kernel name (raw bytes; writers repair UTF-8)
  int64_t calls = 0;  // every call or launch, timed or not
  int64_t timed_calls = 0;  // those with a duration (kernels without device times are not)
  int64_t total_ns = 0;
  int64_t min_ns = 0;            // 0 when timed_calls == 0
  int64_t max_ns = 0;            // 0 when timed_calls == 0
  double squared_deviation = 0;  // sum over timed calls of (duration - mean)^2, in ns^2
  // Nearest rank, within 0.8% (report/duration_histogram.hpp); 0 without timed calls. Not kept
  // here as durations go by: filled from the histograms the run profile already keeps
  // (report/stats_quantiles.hpp), so a run of a million names holds one histogram per name.
  int64_t median_ns = 0;
  int64_t p95_ns = 0;

  int64_t average_ns() const;  // total_ns / timed_calls rounded half up; 0 without timed calls
  int64_t stddev_ns() const;   // population standard deviation, rounded to the nearest ns
};

struct StatsTable {
  std::vector<NameStats> rows;  // by total_ns descending, then name ascending (bytewise)
  int64_t total_ns = 0;         // sum of the rows' total_ns: the base of their percentages
  int64_t calls = 0;
};

// One pass over the rows in storage order (no SQL GROUP BY, no sort): each key keeps its count,
// exact integer sum and sum of squares, so the squared deviation n*sum(x^2) - sum(x)^2 is exact
// too (128-bit), without the cancellation of a floating-point sum(x^2) - n*mean^2.
struct DurationAccumulator {
  int64_t calls = 0, timed = 0, total = 0, low = 0, high = 0;
  __int128 sum_squares = 0;
  bool overflow = false;  // durations so long that n*sum(x^2) may not fit: fall back to double

  void add(bool timed_row, int64_t duration) {
    ++calls;
    if (!timed_row) return;
    low = timed == 0 ? duration : std::min(low, duration);
    high = timed == 0 ? duration : std::max(high, duration);
    ++timed;
    total += duration;
    __int128 square = static_cast<__int128>(duration) * duration;
    overflow = overflow || duration > (int64_t{1} << 40) || duration < -(int64_t{1} << 40);
    sum_squares += square;
  }
  double squared_deviation() const {
    if (timed == 0) return 0;
    if (!overflow) {
      __int128 n = timed, sum = total;
      __int128 scaled = n * sum_squares - sum * sum;  // n * squared deviation, exact
      return static_cast<double>(scaled) / static_cast<double>(timed);
    }
    long double mean = static_cast<long double>(total) / timed;
    return static_cast<double>(static_cast<long double>(sum_squares) - mean * mean * timed);
  }
  NameStats stats(std::string name) const {
    NameStats row;
    row.name = std::move(name);
    row.calls = calls;
    row.timed_calls = timed;
    row.total_ns = total;
    row.min_ns = low;
    row.max_ns = high;
    row.squared_deviation = std::max(0.0, squared_deviation());
    return row;
  }
};

// API durations are end_ns - begin_ns of api_calls, grouped by api_names.name.
// The calls of one runtime; `with_unnamed` also counts calls whose api_id api_names lacks.
StatsTable query_api_stats(Database& db, const RowFilter& filter, int64_t runtime_id,
                           bool with_unnamed);
// Kernel durations are device_end_ns - device_begin_ns, grouped by the kernel's (demangled) name;
// launches with NULL device times count in `calls` only.
StatsTable query_kernel_stats(Database& db, const RowFilter& filter);

// The same two as consumers of one pass over the events (report/event_pass.hpp): durations are
// added per id as the rows go by; names are read once per id when the table is made.
class ApiStatsCollector final : public EventConsumer {
 public:
  void api(const ApiRow& r) override { by_api_[r.api_id].add(true, r.end_ns - r.begin_ns); }
  StatsTable table(Database& db, int64_t runtime_id, bool with_unnamed) const;

 private:
  std::map<int64_t, DurationAccumulator> by_api_;
};

class KernelStatsCollector final : public EventConsumer {
 public:
  // Totals are kept by `names`' slot (a vector, not a map of strings): `names` must outlive the
  // collector and be the selected process's.
  explicit KernelStatsCollector(const KernelNames& names) : names_(names), by_slot_(names.size()) {}
  void kernel(const KernelRow& r) override {
    // Keyed by name_id; a kernel whose symbol was never resolved (name_id NULL) by its function
    // address. Launches without device times are counted, not timed.
    DurationAccumulator& totals =
        !r.name_id ? by_address_[r.function_address] : of_name(*r.name_id);
    const bool timed = r.device_begin_ns && r.device_end_ns;
    totals.add(timed, timed ? *r.device_end_ns - *r.device_begin_ns : 0);
  }
  StatsTable table() const;

 private:
  DurationAccumulator& of_name(int64_t name_id) {
    if (auto slot = names_.slot(name_id)) return by_slot_[*slot];
    return by_unknown_id_[name_id];  // an id the strings table lacks
  }
  const KernelNames& names_;
  std::vector<DurationAccumulator> by_slot_;
  std::map<int64_t, DurationAccumulator> by_unknown_id_, by_address_;
};

// One table over several processes' tables: rows of the same name are combined (counts and
// totals add; squared deviations combine exactly as one pass over all durations would give).
// A combined row's median and p95 cannot come from its parts': they are 0 until filled from the
// combined durations (report/stats_quantiles.hpp).
StatsTable merge_stats_tables(std::vector<StatsTable> tables);

// Builds a table from unsorted rows: sorts them and sums the totals. Exposed for tests.
StatsTable make_stats_table(std::vector<NameStats> rows);

}  // namespace prof::report
