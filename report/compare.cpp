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

#include "report/csv_writer.hpp"
#include "report/json_escape.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0;
}

RunProfile read_one(const std::string& path) {
  if (is_sqlite_file(path)) {
    std::unique_ptr<Database> db = open_report_db(path);
    try {
      return profile_from_db(*db, RowFilter{}, path);
    } catch (const DbError& e) {
      throw as_report_error(e);
    }
  }
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
        return static_cast<int64_t>(std::llround((static_cast<double>(a) * static_cast<double>(m.timed_calls) +
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
    if (ends_with(name, ".db")) dbs.push_back(path);
    else if (ends_with(name, ".summary.json")) summaries.push_back(path);
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
      throw ReportMissingInput(path + ": no prof databases (*.db) or run summaries (*.summary.json) in the folder");
  } else {
    side.files = {path};
  }
  std::map<std::string, size_t> run_of;  // run id -> index in side.runs
  for (const std::string& file : side.files) {
    RunProfile profile = read_one(file);
    if (!profile.run_id.empty()) {
      auto [it, fresh] = run_of.emplace(profile.run_id, side.runs.size());
      if (!fresh) {
        add_profile(side.runs[it->second], profile);
        continue;
      }
    }
    side.runs.push_back(std::move(profile));
  }
  return side;
}

namespace {

using Key = std::tuple<std::string, std::string, std::string>;

SideStats side_stats(const std::vector<const ProfileEntry*>& per_run) {
  SideStats s;
  const int64_t runs = static_cast<int64_t>(per_run.size());
  int64_t calls = 0, total = 0, timed = 0, bytes = 0;
  double median = 0, p95 = 0;
  bool first = true;
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

std::string percent_change(int64_t from, int64_t to) {
  if (from == 0) return to == 0 ? "0.0%" : "new";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * static_cast<double>(to - from) / static_cast<double>(from));
  return buf;
}

std::string key_label(const CompareRow& r) {
  return r.kind + (r.runtime.empty() ? "" : " " + r.runtime) + " " + r.name;
}

constexpr int64_t kNoiseFactor = 2;

void judge(CompareRow& r, const CompareOptions& o, bool repeated) {
  const SideStats &b = r.base, &n = r.now;
  r.delta_ns = n.total_ns - b.total_ns;
  if (std::max(b.total_ns, n.total_ns) < o.min_time_ns) {
    r.status = CompareStatus::kIgnored;
    r.reason = "total under --min-time " + human_duration(o.min_time_ns) + " on both sides";
    return;
  }
  if (!b.present) {
    r.status = CompareStatus::kNew;
    r.regression = true;
    r.reason = "new: " + std::to_string(n.calls) + " calls, " + human_duration(n.total_ns);
    return;
  }
  if (!n.present) {
    r.status = CompareStatus::kVanished;
    r.regression = o.check_calls;
    r.reason = "vanished: " + std::to_string(b.calls) + " calls, " + human_duration(b.total_ns) + " in the base";
    return;
  }
  // Differences within the spread of repeated runs are noise: a change counts only when it is
  // larger than the threshold and than twice both sides' spreads together (max - min of the runs'
  // totals). With 3 runs a side of normally distributed noise, 1 entry in 1000 passes that by chance.
  const int64_t noise = kNoiseFactor * ((b.total_high - b.total_low) + (n.total_high - n.total_low));
  const double limit = o.threshold * static_cast<double>(b.total_ns);
  // A total moved by a few slow calls (a thread descheduled inside a call, a busy machine) is not a
  // change of the entry: the median call must move the same way by more than the threshold too.
  // Entries without durations (median 0 on a side) are judged by their totals alone.
  const bool has_median = b.median_ns > 0 && n.median_ns > 0;
  const double median_limit = o.threshold * static_cast<double>(b.median_ns);
  const int64_t median_delta = n.median_ns - b.median_ns;
  const bool median_up = !has_median || static_cast<double>(median_delta) > median_limit;
  const bool median_down = !has_median || static_cast<double>(-median_delta) > median_limit;
  const bool total_up = r.delta_ns > 0 && static_cast<double>(r.delta_ns) > limit && r.delta_ns > noise;
  const bool total_down = r.delta_ns < 0 && static_cast<double>(-r.delta_ns) > limit && -r.delta_ns > noise;
  std::vector<std::string> why;
  if (total_up && median_up) {
    r.status = CompareStatus::kRegressed;
    why.push_back("total " + human_duration(b.total_ns) + " -> " + human_duration(n.total_ns) + " (" +
                  percent_change(b.total_ns, n.total_ns) + ")");
  } else if (total_down && median_down) {
    r.status = CompareStatus::kImproved;
    r.reason = "total " + percent_change(b.total_ns, n.total_ns);
  } else if (total_up || total_down) {
    r.reason = "total " + percent_change(b.total_ns, n.total_ns) + " from a few calls: the median call " +
               human_duration(b.median_ns) + " -> " + human_duration(n.median_ns) + " (" +
               percent_change(b.median_ns, n.median_ns) + ")";
  }
  if (o.check_calls && (n.calls_low > b.calls_high || n.calls_high < b.calls_low)) {
    r.status = CompareStatus::kRegressed;
    why.push_back("calls " + std::to_string(b.calls) + " -> " + std::to_string(n.calls));
  }
  if (r.status == CompareStatus::kRegressed) {
    r.regression = true;
    r.reason.clear();
    for (const std::string& w : why) r.reason += (r.reason.empty() ? "" : ", ") + w;
    if (repeated && r.delta_ns > noise) r.reason += " (beyond twice the runs' spread, " + human_duration(noise) + ")";
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
  // Every key either side has, with each run's entry (nullptr where the run lacks it).
  std::map<Key, std::pair<std::vector<const ProfileEntry*>, std::vector<const ProfileEntry*>>> keys;
  auto collect = [&](const Side& side, bool is_base) {
    for (size_t i = 0; i < side.runs.size(); ++i)
      for (const ProfileEntry& e : side.runs[i].entries) {
        auto& slots = keys[Key{e.kind, e.runtime, e.name}];
        auto& runs = is_base ? slots.first : slots.second;
        runs.resize(side.runs.size(), nullptr);
        runs[i] = &e;
      }
  };
  collect(base, true);
  collect(now, false);
  const bool repeated = c.base_runs > 1 || c.new_runs > 1;
  for (auto& [key, slots] : keys) {
    CompareRow row;
    std::tie(row.kind, row.runtime, row.name) = key;
    slots.first.resize(base.runs.size(), nullptr);
    slots.second.resize(now.runs.size(), nullptr);
    row.base = side_stats(slots.first);
    row.now = side_stats(slots.second);
    judge(row, options, repeated);
    c.regressions += row.regression;
    c.rows.push_back(std::move(row));
  }
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const CompareRow& a, const CompareRow& b) {
    if (a.regression != b.regression) return a.regression;
    if (a.regression) return std::tie(a.name, a.kind, a.runtime) < std::tie(b.name, b.kind, b.runtime);
    if (std::llabs(a.delta_ns) != std::llabs(b.delta_ns)) return std::llabs(a.delta_ns) > std::llabs(b.delta_ns);
    return std::tie(a.kind, a.runtime, a.name) < std::tie(b.kind, b.runtime, b.name);
  });
  return c;
}

namespace {

std::string runs_text(int64_t runs) { return std::to_string(runs) + (runs == 1 ? " run" : " runs"); }

std::string header_line(const Comparison& c) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g%%", c.options.threshold * 100);
  return "base " + c.base_path + " (" + runs_text(c.base_runs) + ") vs new " + c.new_path + " (" +
         runs_text(c.new_runs) + "); threshold " + threshold + ", min-time " + human_duration(c.options.min_time_ns) +
         ", call counts " + (c.options.check_calls ? "checked" : "not checked");
}

std::string noise_line(const Comparison& c) {
  const std::string median = "A change of the total that the median call does not show (a few slow calls) is not flagged.";
  if (c.base_runs < 2 && c.new_runs < 2) return median;
  return "Repeated runs: a change within twice the spread of the runs' totals (max - min, both sides added) is not "
         "flagged.\n" + median;
}

std::string verdict_line(const Comparison& c) {
  return c.regressions == 0 ? "clean: nothing regressed"
                            : std::to_string(c.regressions) + (c.regressions == 1 ? " regression" : " regressions");
}

bool listed(const CompareRow& r) { return r.status != CompareStatus::kIgnored && r.status != CompareStatus::kUnchanged; }

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

void write_text(const Comparison& c, TextSink& out) {
  out.write("prof compare: " + header_line(c) + "\n");
  out.write(noise_line(c) + "\n");
  int64_t ignored = 0, unchanged = 0;
  for (const CompareRow& r : c.rows) {
    ignored += r.status == CompareStatus::kIgnored;
    unchanged += r.status == CompareStatus::kUnchanged;
  }
  if (c.regressions > 0) {
    out.write("\nREGRESSED (" + std::to_string(c.regressions) + "):\n");
    for (const CompareRow& r : c.rows)
      if (r.regression) out.write("  " + key_label(r) + ": " + r.reason + "\n");
  }
  out.write("\n" + pad("Status", 10) + pad("Kind", 12) + pad("Calls", 18) + pad("Total", 26) + pad("Change", 9) +
            pad("Median", 24) + "Name\n");
  for (const CompareRow& r : c.rows) {
    if (!listed(r)) continue;
    std::string calls = std::to_string(r.base.calls) + " -> " + std::to_string(r.now.calls);
    std::string total = human_duration(r.base.total_ns) + " -> " + human_duration(r.now.total_ns);
    std::string median = human_duration(r.base.median_ns) + " -> " + human_duration(r.now.median_ns);
    out.write(pad(status_name(r.status), 10) + pad(r.kind + (r.runtime.empty() ? "" : ":" + r.runtime), 12) +
              pad(calls, 18) + pad(total, 26) + pad(percent_change(r.base.total_ns, r.now.total_ns), 9) +
              pad(median, 24) + r.name + "\n");
  }
  out.write("(" + std::to_string(unchanged) + " unchanged, " + std::to_string(ignored) + " under --min-time)\n");
  bool noted = false;
  for (const CompareRow& r : c.rows) {
    if (r.status != CompareStatus::kUnchanged || r.reason.empty()) continue;
    if (!noted) out.write("\nNot flagged, the total moved but the median call did not:\n");
    noted = true;
    out.write("  " + key_label(r) + ": " + r.reason + "\n");
  }
  out.write("\nverdict: " + verdict_line(c) + "\n");
}

void write_csv(const Comparison& c, TextSink& out) {
  CsvWriter csv(out);
  csv.begin({"Status", "Kind", "Runtime", "Name", "BaseCalls", "NewCalls", "BaseTotalNs", "NewTotalNs", "DeltaNs",
             "DeltaPercent", "BaseAverageNs", "NewAverageNs", "BaseMedianNs", "NewMedianNs", "BaseP95Ns", "NewP95Ns",
             "BaseMinNs", "NewMinNs", "BaseMaxNs", "NewMaxNs", "BaseSpreadNs", "NewSpreadNs", "Reason"});
  for (const CompareRow& r : c.rows) {
    auto n = [](int64_t v) { return std::to_string(v); };
    std::string pct = r.base.total_ns ? percent_change(r.base.total_ns, r.now.total_ns) : "";
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    csv.row({status_name(r.status), r.kind, r.runtime, r.name, n(r.base.calls), n(r.now.calls), n(r.base.total_ns),
             n(r.now.total_ns), n(r.delta_ns), pct, n(r.base.average_ns), n(r.now.average_ns), n(r.base.median_ns),
             n(r.now.median_ns), n(r.base.p95_ns), n(r.now.p95_ns), n(r.base.min_ns), n(r.now.min_ns),
             n(r.base.max_ns), n(r.now.max_ns), n(r.base.total_high - r.base.total_low),
             n(r.now.total_high - r.now.total_low), r.reason});
  }
}

std::string side_json(const SideStats& s) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return std::string("{\"present\":") + (s.present ? "true" : "false") + ",\"calls\":" + n(s.calls) +
         ",\"total_ns\":" + n(s.total_ns) + ",\"average_ns\":" + n(s.average_ns) + ",\"median_ns\":" + n(s.median_ns) +
         ",\"p95_ns\":" + n(s.p95_ns) + ",\"min_ns\":" + n(s.min_ns) + ",\"max_ns\":" + n(s.max_ns) +
         ",\"bytes\":" + n(s.bytes) + ",\"total_low_ns\":" + n(s.total_low) + ",\"total_high_ns\":" +
         n(s.total_high) + ",\"calls_low\":" + n(s.calls_low) + ",\"calls_high\":" + n(s.calls_high) + "}";
}

void write_json(const Comparison& c, TextSink& out) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%.17g", c.options.threshold);
  std::string text = "{\"prof_compare\":" + std::to_string(kCompareVersion) +
                     ",\"verdict\":" + json_string(c.regressions ? "regressed" : "clean") +
                     ",\"regressions\":" + std::to_string(c.regressions) + ",\"threshold\":" + threshold +
                     ",\"min_time_ns\":" + std::to_string(c.options.min_time_ns) +
                     ",\"check_calls\":" + (c.options.check_calls ? "true" : "false") +
                     ",\"base\":{\"path\":" + json_string(c.base_path) + ",\"runs\":" + std::to_string(c.base_runs) +
                     "},\"new\":{\"path\":" + json_string(c.new_path) + ",\"runs\":" + std::to_string(c.new_runs) +
                     "},\n\"entries\":[";
  out.write(text);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    text = i ? ",\n" : "\n";
    text += "{\"status\":" + json_string(status_name(r.status)) + ",\"regression\":" +
            (r.regression ? "true" : "false") + ",\"kind\":" + json_string(r.kind) +
            ",\"runtime\":" + json_string(r.runtime) + ",\"name\":" + json_string(r.name) +
            ",\"delta_ns\":" + std::to_string(r.delta_ns) + ",\"reason\":" + json_string(r.reason) +
            ",\"base\":" + side_json(r.base) + ",\"new\":" + side_json(r.now) + "}";
    out.write(text);
  }
  out.write("\n]}\n");
}

// Markdown table cells: a '|' or a newline in a kernel name would end the cell.
std::string md_cell(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else if (ch == '`') out += "\\`";
    else out += ch;
  }
  return out;
}

void write_markdown(const Comparison& c, TextSink& out) {
  out.write(std::string("### prof compare: ") + (c.regressions ? "❌ " : "✅ ") + md_cell(verdict_line(c)) + "\n\n");
  out.write(md_cell(header_line(c)) + "\n\n");
  out.write(noise_line(c) + "\n\n");
  out.write("| Status | Kind | Name | Calls | Total | Change | Median | p95 | Why |\n");
  out.write("|---|---|---|---:|---:|---:|---:|---:|---|\n");
  int shown = 0, hidden = 0;
  for (const CompareRow& r : c.rows) {
    if (!listed(r)) continue;
    if (++shown > 100) {
      ++hidden;
      continue;
    }
    out.write("| " + std::string(r.regression ? "**" : "") + status_name(r.status) + (r.regression ? "**" : "") +
              " | " + r.kind + (r.runtime.empty() ? "" : " " + r.runtime) + " | " + md_cell(r.name) + " | " +
              std::to_string(r.base.calls) + " → " + std::to_string(r.now.calls) + " | " +
              human_duration(r.base.total_ns) + " → " + human_duration(r.now.total_ns) + " | " +
              percent_change(r.base.total_ns, r.now.total_ns) + " | " + human_duration(r.base.median_ns) + " → " +
              human_duration(r.now.median_ns) + " | " + human_duration(r.base.p95_ns) + " → " +
              human_duration(r.now.p95_ns) + " | " + md_cell(r.reason) + " |\n");
  }
  if (shown == 0) out.write("| | | no changes beyond the threshold | | | | | | |\n");
  if (hidden > 0) out.write("\n" + std::to_string(hidden) + " more changed entries: see the CSV or JSON output.\n");
}

}  // namespace

void write_comparison(const Comparison& comparison, CompareFormat format, TextSink& out) {
  switch (format) {
    case CompareFormat::kText: write_text(comparison, out); break;
    case CompareFormat::kCsv: write_csv(comparison, out); break;
    case CompareFormat::kJson: write_json(comparison, out); break;
    case CompareFormat::kMarkdown: write_markdown(comparison, out); break;
  }
}

}  // namespace prof::report
