#include "report/compare.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

#include "report/compare_format.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0;
}

RunProfile read_one(const std::string& path, RunSamples& samples) {
  if (is_sqlite_file(path)) return read_db_with_samples(path, samples);
  if (ends_with(path, ".db")) throw ReportError(path + ": not a SQLite database");
  return read_profile_json(path);
}

// Several processes of one run: counts and totals add; min and max combine; a median and a p95
// combine as the timed-call-weighted mean of the processes' (exact for one process).
void add_profile(RunProfile& into, const RunProfile& more) {
  std::vector<ProfileEntry> merged;
  std::vector<ProfileEntry> all = into.entries;
  all.insert(all.end(), more.entries.begin(), more.entries.end());
  std::stable_sort(all.begin(), all.end(), entry_key_less);
  for (const ProfileEntry& e : all) {
    if (merged.empty() || !merged.back().same_key(e)) {
      merged.push_back(e);
      continue;
    }
    ProfileEntry& m = merged.back();
    int64_t timed = m.timed_calls + e.timed_calls;
    if (e.timed_calls > 0) {
      auto weighted = [&](int64_t a, int64_t b) {
        return static_cast<int64_t>(
            std::llround((static_cast<double>(a) * static_cast<double>(m.timed_calls) +
                          static_cast<double>(b) * static_cast<double>(e.timed_calls)) /
                         static_cast<double>(timed)));
      };
      m.median_ns = weighted(m.median_ns, e.median_ns);
      m.p95_ns = weighted(m.p95_ns, e.p95_ns);
      m.min_ns = m.timed_calls > 0 ? std::min(m.min_ns, e.min_ns) : e.min_ns;
      m.max_ns = std::max(m.max_ns, e.max_ns);
    }
    m.calls += e.calls;
    m.timed_calls = timed;
    m.total_ns += e.total_ns;
    m.bytes += e.bytes;
  }
  into.entries = std::move(merged);
  into.processes += more.processes;
}

std::vector<std::string> list_inputs(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) throw ReportError(dir + ": cannot read the folder (" + std::strerror(errno) + ")");
  std::vector<std::string> dbs, summaries;
  while (dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    std::string path = dir + (ends_with(dir, "/") ? "" : "/") + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (ends_with(name, ".db"))
      dbs.push_back(path);
    else if (ends_with(name, ".summary.json"))
      summaries.push_back(path);
  }
  closedir(d);
  std::vector<std::string>& chosen = dbs.empty() ? summaries : dbs;
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

const char* status_name(CompareStatus status) {
  switch (status) {
    case CompareStatus::kRegressed: return "regressed";
    case CompareStatus::kImproved: return "improved";
    case CompareStatus::kUnchanged: return "unchanged";
    case CompareStatus::kNew: return "new";
    case CompareStatus::kVanished: return "vanished";
    case CompareStatus::kIgnored: return "ignored";
  }
  return "unknown";
}

Side load_side(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw ReportMissingInput(path + ": no such file or folder");
  Side side;
  side.path = path;
  if (S_ISDIR(st.st_mode)) {
    side.files = list_inputs(path);
    if (side.files.empty())
      throw ReportMissingInput(
          path + ": no prof databases (*.db) or run summaries (*.summary.json) in the folder");
  } else {
    side.files = {path};
  }
  std::map<std::string, size_t> run_of;  // run id -> index in side.runs
  for (const std::string& file : side.files) {
    RunSamples samples;
    RunProfile profile = read_one(file, samples);
    if (!profile.run_id.empty()) {
      auto [it, fresh] = run_of.emplace(profile.run_id, side.runs.size());
      if (!fresh) {
        add_profile(side.runs[it->second], profile);
        side.samples[it->second].absorb(samples);
        continue;
      }
    }
    side.runs.push_back(std::move(profile));
    side.samples.push_back(std::move(samples));
  }
  return side;
}

namespace {

using Key = EntryKey;

// An entry on one side: per run, its profile entry (nullptr where the run lacks it) and its sample.
struct SideSlots {
  std::vector<const ProfileEntry*> entries;
  std::vector<const CallSample*> samples;
};

SideStats side_stats(const std::vector<const ProfileEntry*>& per_run) {
  SideStats s;
  const int64_t runs = static_cast<int64_t>(per_run.size());
  int64_t calls = 0, total = 0, timed = 0, bytes = 0;
  double median = 0, p95 = 0;
  bool first = true, first_median = true;
  for (const ProfileEntry* e : per_run) {
    int64_t c = e ? e->calls : 0, t = e ? e->total_ns : 0;
    s.total_low = first ? t : std::min(s.total_low, t);
    s.total_high = first ? t : std::max(s.total_high, t);
    s.calls_low = first ? c : std::min(s.calls_low, c);
    s.calls_high = first ? c : std::max(s.calls_high, c);
    first = false;
    if (!e) continue;
    s.present = true;
    calls += c;
    total += t;
    bytes += e->bytes;
    if (e->timed_calls > 0) {
      s.min_ns = timed > 0 ? std::min(s.min_ns, e->min_ns) : e->min_ns;
      s.max_ns = std::max(s.max_ns, e->max_ns);
      median += static_cast<double>(e->median_ns) * static_cast<double>(e->timed_calls);
      p95 += static_cast<double>(e->p95_ns) * static_cast<double>(e->timed_calls);
      timed += e->timed_calls;
      s.median_low = first_median ? e->median_ns : std::min(s.median_low, e->median_ns);
      s.median_high = first_median ? e->median_ns : std::max(s.median_high, e->median_ns);
      first_median = false;
    }
  }
  if (runs > 0) {
    s.calls = rounded_div(calls, runs);
    s.total_ns = rounded_div(total, runs);
    s.bytes = rounded_div(bytes, runs);
  }
  if (timed > 0) {
    s.average_ns = rounded_div(total, timed);
    s.median_ns = std::llround(median / static_cast<double>(timed));
    s.p95_ns = std::llround(p95 / static_cast<double>(timed));
  }
  return s;
}

// Every run's sample of the entry together; empty when a run has no per-call data (a run summary).
bool pooled(const std::vector<const CallSample*>& samples, bool per_call,
            std::vector<int64_t>& out) {
  if (!per_call) return false;
  for (const CallSample* s : samples)
    if (s) out.insert(out.end(), s->values().begin(), s->values().end());
  return true;
}

std::string p_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, p >= 0.001 ? "%.3f" : "%.1e", p);
  return buf;
}

std::string change_text(int64_t from, int64_t to) {
  return human_duration(from) + " -> " + human_duration(to) + " (" + percent_change(from, to) + ")";
}

constexpr int64_t kNoiseFactor = 2;

// Ignored, new and vanished entries; true when one of them decided the row.
bool judge_presence(CompareRow& r, const CompareOptions& o) {
  const SideStats &b = r.base, &n = r.now;
  r.delta_ns = n.total_ns - b.total_ns;
  if (std::max(b.total_ns, n.total_ns) < o.min_time_ns) {
    r.status = CompareStatus::kIgnored;
    r.reason = "total under --min-time " + human_duration(o.min_time_ns) + " on both sides";
    return true;
  }
  if (!b.present) {
    r.status = CompareStatus::kNew;
    r.regression = true;
    r.reason = "new: " + std::to_string(n.calls) + " calls, " + human_duration(n.total_ns);
    return true;
  }
  if (!n.present) {
    r.status = CompareStatus::kVanished;
    r.regression = o.check_calls;
    r.reason = "vanished: " + std::to_string(b.calls) + " calls, " + human_duration(b.total_ns) +
               " in the base";
    return true;
  }
  return false;
}

void judge_calls(CompareRow& r, const CompareOptions& o, std::vector<std::string>& why) {
  if (o.check_calls &&
      (r.now.calls_low > r.base.calls_high || r.now.calls_high < r.base.calls_low)) {
    r.status = CompareStatus::kRegressed;
    why.push_back("calls " + std::to_string(r.base.calls) + " -> " + std::to_string(r.now.calls));
  }
}

void finish_regression(CompareRow& r, const std::vector<std::string>& why,
                       const std::string& suffix) {
  if (r.status != CompareStatus::kRegressed) return;
  r.regression = true;
  r.reason.clear();
  for (const std::string& w : why) r.reason += (r.reason.empty() ? "" : ", ") + w;
  r.reason += suffix;
}

// The totals rule, for entries without per-call durations on a side (run summaries).
void judge_totals(CompareRow& r, const CompareOptions& o, bool repeated) {
  const SideStats &b = r.base, &n = r.now;
  // Differences within the spread of repeated runs are noise: a change counts only when it is
  // larger than the threshold and than twice both sides' spreads together (max - min of the runs'
  // totals). With 3 runs a side of normally distributed noise, 1 entry in 1000 passes that by
  // chance.
  const int64_t noise =
      kNoiseFactor * ((b.total_high - b.total_low) + (n.total_high - n.total_low));
  const double limit = o.threshold * static_cast<double>(b.total_ns);
  // A total moved by a few slow calls (a thread descheduled inside a call, a busy machine) is not a
  // change of the entry: the median call must move the same way by more than the threshold too.
  // Entries without durations (median 0 on a side) are judged by their totals alone.
  const bool has_median = b.median_ns > 0 && n.median_ns > 0;
  const double median_limit = o.threshold * static_cast<double>(b.median_ns);
  const int64_t median_delta = n.median_ns - b.median_ns;
  const bool median_up = !has_median || static_cast<double>(median_delta) > median_limit;
  const bool median_down = !has_median || static_cast<double>(-median_delta) > median_limit;
  const bool total_up =
      r.delta_ns > 0 && static_cast<double>(r.delta_ns) > limit && r.delta_ns > noise;
  const bool total_down =
      r.delta_ns < 0 && static_cast<double>(-r.delta_ns) > limit && -r.delta_ns > noise;
  std::vector<std::string> why;
  if (total_up && median_up) {
    r.status = CompareStatus::kRegressed;
    why.push_back("total " + change_text(b.total_ns, n.total_ns));
  } else if (total_down && median_down) {
    r.status = CompareStatus::kImproved;
    r.reason = "total " + percent_change(b.total_ns, n.total_ns);
  } else if (total_up || total_down) {
    r.reason = "total " + percent_change(b.total_ns, n.total_ns) +
               " from a few calls: the median call " + change_text(b.median_ns, n.median_ns);
  }
  judge_calls(r, o, why);
  finish_regression(r, why,
                    repeated && r.delta_ns > noise
                        ? " (beyond twice the runs' spread, " + human_duration(noise) + ")"
                        : std::string());
}

// The per-call rule (docs/compare.md, "The rule"): the total moves by more than the threshold and
// --min-time, the median call by more than the threshold (host: and kHostMedianFloorNs, and with
// repeated runs on both sides the spread of the runs' medians), and a one-sided rank test of the
// calls' durations passes the entry's level. A device-timed entry with too few launches for the
// test to reach its level at all is judged by its total and median alone.
void judge_per_call(CompareRow& r, const CompareOptions& o, bool repeated_both, bool one_run) {
  const SideStats &b = r.base, &n = r.now;
  double median_limit = o.threshold * static_cast<double>(b.median_ns);
  std::string median_bar = "the threshold";
  if (!r.device_timed && median_limit < static_cast<double>(kHostMedianFloorNs)) {
    median_limit = static_cast<double>(kHostMedianFloorNs);
    median_bar = "the host floor " + human_duration(kHostMedianFloorNs);
  }
  const int64_t spread = (b.median_high - b.median_low) + (n.median_high - n.median_low);
  if (repeated_both && !r.device_timed && static_cast<double>(spread) > median_limit) {
    median_limit = static_cast<double>(spread);
    median_bar = "the runs' spread of medians " + human_duration(spread);
  }
  const int64_t median_delta = n.median_ns - b.median_ns;
  const bool rising = median_delta > 0 || (median_delta == 0 && r.delta_ns > 0);
  const double bm = static_cast<double>(b.median_ns), nm = static_cast<double>(n.median_ns);
  bool median_moves = static_cast<double>(std::llabs(median_delta)) > median_limit;
  if (median_moves && one_run && !r.device_timed &&
      !(rising ? nm > kOneRunHostFactor * bm : bm > kOneRunHostFactor * nm)) {
    median_moves = false;
    char factor[32];
    std::snprintf(factor, sizeof factor, "%gx", kOneRunHostFactor);
    median_bar =
        std::string(factor) + " (one run on a side: host times of identical runs differ that much)";
  }
  // The absolute change, robust to a few outliers (a launch on an idle stream that carries a long
  // host gap, a descheduled call): the median call's change over all the calls.
  const double amount = static_cast<double>(std::llabs(median_delta)) *
                        static_cast<double>(rising ? n.calls : b.calls);
  const bool large = amount > static_cast<double>(o.min_time_ns);
  const double p = rising ? r.test.p_greater : r.test.p_less;
  const bool significant = r.testable ? p < r.alpha : r.device_timed;
  const std::string counts = std::to_string(b.tested) + " vs " + std::to_string(n.tested);
  const std::string test =
      r.testable ? "rank test p = " + p_text(p) + " < " + p_text(r.alpha) + " (" + counts + ")"
                 : "too few launches for a rank test (" + counts + "): device times";
  const double total_limit =
      std::max(o.threshold * static_cast<double>(b.total_ns), static_cast<double>(o.min_time_ns));
  std::vector<std::string> why;
  if (median_moves && large && significant) {
    if (rising) {
      r.status = CompareStatus::kRegressed;
      why.push_back("total " + change_text(b.total_ns, n.total_ns) + ", median call " +
                    change_text(b.median_ns, n.median_ns) + ", " + test);
    } else {
      r.status = CompareStatus::kImproved;
      r.reason = "total " + percent_change(b.total_ns, n.total_ns) + ", median call " +
                 percent_change(b.median_ns, n.median_ns) + ", " + test;
    }
  } else if (static_cast<double>(std::llabs(r.delta_ns)) > total_limit || (median_moves && large)) {
    const std::string total = "total " + percent_change(b.total_ns, n.total_ns) + ": ";
    if (!r.testable && !r.device_timed) {
      r.reason = total + "too few calls to tell (" + counts +
                 " calls: the rank test cannot go under p = " +
                 p_text(smallest_rank_test_p(b.tested, n.tested)) + ", it needs < " +
                 p_text(r.alpha) + ")";
    } else if (!median_moves) {
      r.reason = total + "the median call " + change_text(b.median_ns, n.median_ns) +
                 " did not change by more than " + median_bar;
    } else if (!large) {
      r.reason = total + "the median call's change over " +
                 std::to_string(rising ? n.calls : b.calls) + " calls, " +
                 human_duration(static_cast<int64_t>(amount)) + ", is under --min-time";
    } else {
      r.reason = total + "not significant (rank test p = " + p_text(p) + ", needs < " +
                 p_text(r.alpha) + ", " + counts + " calls)";
    }
  }
  judge_calls(r, o, why);
  finish_regression(r, why, "");
}

// Every key either side has, with each run's entry and sample (nullptr where the run lacks it).
std::map<Key, std::pair<SideSlots, SideSlots>> side_keys(const Side& base, const Side& now) {
  std::map<Key, std::pair<SideSlots, SideSlots>> keys;
  auto collect = [&](const Side& side, bool is_base) {
    const size_t runs = side.runs.size();
    for (size_t i = 0; i < runs; ++i) {
      for (const ProfileEntry& e : side.runs[i].entries) {
        auto& slots = keys[Key{e.kind, e.runtime, e.name}];
        SideSlots& s = is_base ? slots.first : slots.second;
        s.entries.resize(runs, nullptr);
        s.entries[i] = &e;
      }
      if (i >= side.samples.size()) continue;
      for (const auto& [key, sample] : side.samples[i].entries) {
        auto& slots = keys[key];
        SideSlots& s = is_base ? slots.first : slots.second;
        s.samples.resize(runs, nullptr);
        s.samples[i] = &sample;
      }
    }
  };
  collect(base, true);
  collect(now, false);
  return keys;
}

// Judges every row, each against its level: a device-timed entry's, or the host-timed entries'
// share of kHostFamilyAlpha.
void judge_rows(Comparison& c, const CompareOptions& options) {
  const bool repeated = c.base_runs > 1 || c.new_runs > 1;
  const bool repeated_both = c.base_runs > 1 && c.new_runs > 1;
  // Bonferroni: every host-timed entry tested is a chance of a false alarm; together they get
  // kHostFamilyAlpha.
  c.host_alpha_each = kHostFamilyAlpha / static_cast<double>(std::max<int64_t>(1, c.host_tests));
  for (CompareRow& row : c.rows) {
    if (judge_presence(row, options)) {
      c.regressions += row.regression;
      continue;
    }
    if (row.per_call) {
      row.alpha = row.device_timed ? kDeviceAlpha : c.host_alpha_each;
      // A device-timed entry's test counts only when its launches could give p ten times under the
      // level: with fewer (4 against 4 reach 1/70), one launch that carries a host gap (an idle
      // stream's begin) decides the test, and the median, which such a launch cannot move, decides.
      row.testable = smallest_rank_test_p(row.base.tested, row.now.tested) <
                     (row.device_timed ? row.alpha / kDeviceTestMargin : row.alpha);
      judge_per_call(row, options, repeated_both, c.base_runs == 1 || c.new_runs == 1);
    } else {
      judge_totals(row, options, repeated);
    }
    c.regressions += row.regression;
  }
}

}  // namespace

Comparison compare_sides(const Side& base, const Side& now, const CompareOptions& options) {
  Comparison c;
  c.options = options;
  c.base_path = base.path;
  c.new_path = now.path;
  c.base_runs = static_cast<int64_t>(base.runs.size());
  c.new_runs = static_cast<int64_t>(now.runs.size());
  auto all_per_call = [](const Side& side) {
    return std::all_of(side.samples.begin(), side.samples.end(),
                       [](const RunSamples& s) { return s.per_call; }) &&
           side.samples.size() == side.runs.size();
  };
  const bool base_per_call = all_per_call(base), now_per_call = all_per_call(now);
  c.per_call = base_per_call && now_per_call;
  std::map<Key, std::pair<SideSlots, SideSlots>> keys = side_keys(base, now);
  for (auto& [key, slots] : keys) {
    CompareRow row;
    std::tie(row.kind, row.runtime, row.name) = key;
    slots.first.entries.resize(base.runs.size(), nullptr);
    slots.second.entries.resize(now.runs.size(), nullptr);
    row.base = side_stats(slots.first.entries);
    row.now = side_stats(slots.second.entries);
    row.device_timed = row.kind != "api";
    std::vector<int64_t> b, n;
    if (pooled(slots.first.samples, base_per_call, b) &&
        pooled(slots.second.samples, now_per_call, n) && !b.empty() && !n.empty()) {
      row.per_call = true;
      row.base.tested = static_cast<int64_t>(b.size());
      row.now.tested = static_cast<int64_t>(n.size());
      row.test = rank_test(b, n);
      c.host_tests += !row.device_timed;
    }
    c.rows.push_back(std::move(row));
  }
  judge_rows(c, options);
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const CompareRow& a, const CompareRow& b) {
    if (a.regression != b.regression) return a.regression;
    if (a.regression)
      return std::tie(a.name, a.kind, a.runtime) < std::tie(b.name, b.kind, b.runtime);
    if (std::llabs(a.delta_ns) != std::llabs(b.delta_ns))
      return std::llabs(a.delta_ns) > std::llabs(b.delta_ns);
    return std::tie(a.kind, a.runtime, a.name) < std::tie(b.kind, b.runtime, b.name);
  });
  return c;
}

}  // namespace prof::report
