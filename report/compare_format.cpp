#include "report/compare_format.hpp"

#include <algorithm>
#include <cstdio>

#include "report/csv_writer.hpp"
#include "report/display_width.hpp"
#include "report/json_escape.hpp"
#include "report/time_format.hpp"
#include "report/utf8.hpp"

namespace prof::report {

std::string percent_change(int64_t from, int64_t to) {
  if (from == 0) return to == 0 ? "0.0%" : "new";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%",
                100.0 * static_cast<double>(to - from) / static_cast<double>(from));
  return buf;
}

namespace {

std::string number(double v, const char* format = "%.3g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Text from a database (names, kinds, paths) as a terminal may show it (report/utf8.hpp): stray
// bytes, control, bidi and separator characters escaped, so a name cannot move the cursor,
// retitle the window, reorder the line or hide the lines after it.
std::string plain(std::string_view text) { return terminal_escaped(text); }

std::string key_label(const CompareRow& r) {
  return plain(r.kind) + (r.runtime.empty() ? "" : " " + plain(r.runtime)) + " " + plain(r.name);
}

std::string runs_text(int64_t runs) {
  return std::to_string(runs) + (runs == 1 ? " run" : " runs");
}

}  // namespace

std::vector<std::string> rule_lines(const Comparison& c) {
  std::vector<std::string> lines;
  if (c.per_call) {
    lines.push_back(
        "Per-call durations on both sides (databases): a host-timed API entry regresses when a "
        "one-sided Mann-Whitney "
        "rank test of its calls passes at " +
        number(kHostFamilyAlpha * 100, "%g") + "% over all " + std::to_string(c.host_tests) +
        " host entries together (Bonferroni: p < " + number(c.host_alpha_each) +
        " each), its median call grows by more than the threshold and " +
        human_duration(kHostMedianFloorNs) +
        ", and that change over all its calls exceeds --min-time. Kernels and copies are timed by "
        "the device's "
        "clock, which host load does not slow: p < " +
        number(kDeviceAlpha * 100, "%g") +
        "% each and the same median changes; with too few launches for a test that one outlier "
        "cannot decide, the "
        "median changes alone.");
    if (c.base_runs > 1 && c.new_runs > 1)
      lines.push_back("Repeated runs (" + std::to_string(c.base_runs) + " vs " +
                      std::to_string(c.new_runs) +
                      "): a host entry's median call must also move by more than the spread of the "
                      "runs' medians "
                      "(max - min, both sides added).");
    else
      lines.push_back(
          std::string(c.base_runs == 1 && c.new_runs == 1 ? "One run per side"
                                                          : "One run on a side") +
          ": run-to-run noise of host times (load, CPU frequency) cannot be measured, so a host "
          "entry's "
          "median call must also change more than " +
          number(kOneRunHostFactor, "%g") +
          "x; entries with few calls cannot reach significance and are not flagged. Device times "
          "are judged as above. Three or more runs per side hold host medians to the runs' spread "
          "instead.");
    return lines;
  }
  lines.push_back(
      "Run summaries on a side (no per-call durations): each entry is judged by its totals; a "
      "change of "
      "the total that the median call does not show (a few slow calls) is not flagged.");
  if (c.base_runs > 1 || c.new_runs > 1)
    lines.push_back(
        "Repeated runs: a change within twice the spread of the runs' totals (max - min, both "
        "sides "
        "added) is not flagged.");
  else
    lines.push_back(
        "One run per side: noise cannot be measured; use databases (per-call durations) or three "
        "or "
        "more runs per side.");
  return lines;
}

namespace {

std::string header_line(const Comparison& c) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g%%", c.options.threshold * 100);
  return "base " + plain(c.base_path) + " (" + runs_text(c.base_runs) + ") vs new " +
         plain(c.new_path) + " (" + runs_text(c.new_runs) + "); threshold " + threshold +
         ", min-time " + human_duration(c.options.min_time_ns) + ", call counts " +
         (c.options.check_calls ? "checked" : "not checked");
}

std::string verdict_line(const Comparison& c) {
  return c.regressions == 0 ? "clean: nothing regressed"
                            : std::to_string(c.regressions) +
                                  (c.regressions == 1 ? " regression" : " regressions");
}

bool listed(const CompareRow& r) {
  return r.status != CompareStatus::kIgnored && r.status != CompareStatus::kUnchanged;
}

std::string test_cell(const CompareRow& r) {
  if (!r.per_call) return "-";
  if (!r.testable) return r.device_timed ? "few launches" : "few calls";
  return "p=" + number(std::min(r.test.p_greater, r.test.p_less), "%.2g");
}

// Columns as wide as their widest cell on a terminal (display columns: a CJK runtime or kind
// takes two per character), two spaces apart; the last (the name) unpadded.
void write_table(const std::vector<std::vector<std::string>>& rows, TextSink& out) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      if (width.size() <= i) width.resize(i + 1, 0);
      width[i] = std::max(width[i], display_columns(row[i]));
    }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(width[i] - display_columns(row[i]) + 2, ' ');
    }
    out.write(line + "\n");
  }
}

void write_text(const Comparison& c, TextSink& out) {
  out.write("prof compare: " + header_line(c) + "\n");
  for (const std::string& line : rule_lines(c)) out.write(line + "\n");
  int64_t ignored = 0, unchanged = 0;
  for (const CompareRow& r : c.rows) {
    ignored += r.status == CompareStatus::kIgnored;
    unchanged += r.status == CompareStatus::kUnchanged;
  }
  if (c.regressions > 0) {
    out.write("\nREGRESSED (" + std::to_string(c.regressions) + "):\n");
    for (const CompareRow& r : c.rows)
      if (r.regression) out.write("  " + key_label(r) + ": " + plain(r.reason) + "\n");
  }
  std::vector<std::vector<std::string>> table = {
      {"Status", "Kind", "Timing", "Calls", "Total", "Change", "Median", "Test", "Name"}};
  for (const CompareRow& r : c.rows) {
    if (!listed(r)) continue;
    table.push_back({status_name(r.status),
                     plain(r.kind) + (r.runtime.empty() ? "" : ":" + plain(r.runtime)),
                     r.device_timed ? "device" : "host",
                     std::to_string(r.base.calls) + " -> " + std::to_string(r.now.calls),
                     human_duration(r.base.total_ns) + " -> " + human_duration(r.now.total_ns),
                     percent_change(r.base.total_ns, r.now.total_ns),
                     human_duration(r.base.median_ns) + " -> " + human_duration(r.now.median_ns),
                     test_cell(r), plain(r.name)});
  }
  out.write("\n");
  if (table.size() > 1) write_table(table, out);
  out.write("(" + std::to_string(unchanged) + " unchanged, " + std::to_string(ignored) +
            " under --min-time)\n");
  bool noted = false;
  for (const CompareRow& r : c.rows) {
    if (r.status != CompareStatus::kUnchanged || r.reason.empty()) continue;
    if (!noted) out.write("\nNot flagged although the total moved:\n");
    noted = true;
    out.write("  " + key_label(r) + ": " + plain(r.reason) + "\n");
  }
  out.write("\nverdict: " + verdict_line(c) + "\n");
}

void write_csv(const Comparison& c, TextSink& out) {
  CsvWriter csv(out);
  csv.begin({"Status",         "Kind",         "Runtime",      "Name",        "BaseCalls",
             "NewCalls",       "BaseTotalNs",  "NewTotalNs",   "DeltaNs",     "DeltaPercent",
             "BaseAverageNs",  "NewAverageNs", "BaseMedianNs", "NewMedianNs", "BaseP95Ns",
             "NewP95Ns",       "BaseMinNs",    "NewMinNs",     "BaseMaxNs",   "NewMaxNs",
             "BaseSpreadNs",   "NewSpreadNs",  "Reason",       "Timing",      "BaseTestedCalls",
             "NewTestedCalls", "PGreater",     "PLess",        "Alpha"});
  for (const CompareRow& r : c.rows) {
    auto n = [](int64_t v) { return std::to_string(v); };
    std::string pct = r.base.total_ns ? percent_change(r.base.total_ns, r.now.total_ns) : "";
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    csv.row({status_name(r.status),
             r.kind,
             r.runtime,
             r.name,
             n(r.base.calls),
             n(r.now.calls),
             n(r.base.total_ns),
             n(r.now.total_ns),
             n(r.delta_ns),
             pct,
             n(r.base.average_ns),
             n(r.now.average_ns),
             n(r.base.median_ns),
             n(r.now.median_ns),
             n(r.base.p95_ns),
             n(r.now.p95_ns),
             n(r.base.min_ns),
             n(r.now.min_ns),
             n(r.base.max_ns),
             n(r.now.max_ns),
             n(r.base.total_high - r.base.total_low),
             n(r.now.total_high - r.now.total_low),
             r.reason,
             r.device_timed ? "device" : "host",
             n(r.base.tested),
             n(r.now.tested),
             r.per_call ? number(r.test.p_greater, "%.6g") : "",
             r.per_call ? number(r.test.p_less, "%.6g") : "",
             r.per_call ? number(r.alpha, "%.6g") : ""});
  }
}

std::string side_json(const SideStats& s) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return std::string("{\"present\":") + (s.present ? "true" : "false") +
         ",\"calls\":" + n(s.calls) + ",\"total_ns\":" + n(s.total_ns) +
         ",\"average_ns\":" + n(s.average_ns) + ",\"median_ns\":" + n(s.median_ns) +
         ",\"p95_ns\":" + n(s.p95_ns) + ",\"min_ns\":" + n(s.min_ns) +
         ",\"max_ns\":" + n(s.max_ns) + ",\"bytes\":" + n(s.bytes) +
         ",\"total_low_ns\":" + n(s.total_low) + ",\"total_high_ns\":" + n(s.total_high) +
         ",\"calls_low\":" + n(s.calls_low) + ",\"calls_high\":" + n(s.calls_high) +
         ",\"median_low_ns\":" + n(s.median_low) + ",\"median_high_ns\":" + n(s.median_high) +
         ",\"tested_calls\":" + n(s.tested) + "}";
}

std::string test_json(const CompareRow& r) {
  if (!r.per_call) return "null";
  return "{\"p_greater\":" + number(r.test.p_greater, "%.6g") +
         ",\"p_less\":" + number(r.test.p_less, "%.6g") + ",\"alpha\":" + number(r.alpha, "%.6g") +
         ",\"exact\":" + (r.test.exact ? "true" : "false") +
         ",\"testable\":" + (r.testable ? "true" : "false") + "}";
}

void write_json(const Comparison& c, TextSink& out) {
  std::string notes;
  for (const std::string& line : rule_lines(c))
    notes += (notes.empty() ? "" : ",") + json_string(line);
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%.17g", c.options.threshold);
  std::string text =
      "{\"prof_compare\":" + std::to_string(kCompareVersion) +
      ",\"verdict\":" + json_string(c.regressions ? "regressed" : "clean") +
      ",\"regressions\":" + std::to_string(c.regressions) + ",\"threshold\":" + threshold +
      ",\"min_time_ns\":" + std::to_string(c.options.min_time_ns) +
      ",\"check_calls\":" + (c.options.check_calls ? "true" : "false") +
      ",\"rule\":{\"per_call\":" + (c.per_call ? "true" : "false") +
      ",\"host_family_alpha\":" + number(kHostFamilyAlpha, "%.10g") +
      ",\"host_tests\":" + std::to_string(c.host_tests) +
      ",\"host_alpha_each\":" + number(c.host_alpha_each, "%.10g") +
      ",\"host_median_floor_ns\":" + std::to_string(kHostMedianFloorNs) +
      ",\"device_alpha\":" + number(kDeviceAlpha, "%.10g") +
      ",\"call_sample_capacity\":" + std::to_string(kCallSampleCapacity) + ",\"notes\":[" + notes +
      "]}" + ",\"base\":{\"path\":" + json_string(c.base_path) +
      ",\"runs\":" + std::to_string(c.base_runs) +
      "},\"new\":{\"path\":" + json_string(c.new_path) + ",\"runs\":" + std::to_string(c.new_runs) +
      "},\n\"entries\":[";
  out.write(text);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    text = i ? ",\n" : "\n";
    text += "{\"status\":" + json_string(status_name(r.status)) +
            ",\"regression\":" + (r.regression ? "true" : "false") +
            ",\"kind\":" + json_string(r.kind) + ",\"runtime\":" + json_string(r.runtime) +
            ",\"name\":" + json_string(r.name) + ",\"delta_ns\":" + std::to_string(r.delta_ns) +
            ",\"reason\":" + json_string(r.reason) +
            ",\"timing\":" + json_string(r.device_timed ? "device" : "host") +
            ",\"test\":" + test_json(r) + ",\"base\":" + side_json(r.base) +
            ",\"new\":" + side_json(r.now) + "}";
    out.write(text);
  }
  out.write("\n]}\n");
}

// Markdown (GitHub's, CommonMark) from a database: every character that could start markup is
// backslash-escaped, so a kernel named `*[x](http://evil)*` or `<img src=x>` shows as written
// ('(' and '!' need none once '[' has one; '#', '+' and '-' mark up only at a line's start, which
// a cell never is; '$' opens GitHub's math). '|' would end a table cell and a newline the table:
// control characters are written as text by plain().
std::string md_cell(std::string_view text) {
  std::string out;
  for (char ch : plain(text)) {
    switch (ch) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '~':
      case '&':
      case '$':
        out += '\\';
        out += ch;
        break;
      default: out += ch;
    }
  }
  return out;
}

void write_markdown(const Comparison& c, TextSink& out) {
  out.write(std::string("### prof compare: ") + (c.regressions ? "❌ " : "✅ ") +
            md_cell(verdict_line(c)) + "\n\n");
  out.write(md_cell(header_line(c)) + "\n\n");
  for (const std::string& line : rule_lines(c)) out.write(md_cell(line) + "\n\n");
  out.write("| Status | Kind | Name | Calls | Total | Change | Median | p95 | Test | Why |\n");
  out.write("|---|---|---|---:|---:|---:|---:|---:|---|---|\n");
  int shown = 0, hidden = 0;
  for (const CompareRow& r : c.rows) {
    if (!listed(r)) continue;
    if (++shown > 100) {
      ++hidden;
      continue;
    }
    out.write("| " + std::string(r.regression ? "**" : "") + status_name(r.status) +
              (r.regression ? "**" : "") + " | " + md_cell(r.kind) +
              (r.runtime.empty() ? "" : " " + md_cell(r.runtime)) +
              (r.device_timed ? " (device)" : " (host)") + " | " + md_cell(r.name) + " | " +
              std::to_string(r.base.calls) + " → " + std::to_string(r.now.calls) + " | " +
              human_duration(r.base.total_ns) + " → " + human_duration(r.now.total_ns) + " | " +
              percent_change(r.base.total_ns, r.now.total_ns) + " | " +
              human_duration(r.base.median_ns) + " → " + human_duration(r.now.median_ns) + " | " +
              human_duration(r.base.p95_ns) + " → " + human_duration(r.now.p95_ns) + " | " +
              test_cell(r) + " | " + md_cell(r.reason) + " |\n");
  }
  if (shown == 0) out.write("| | | no changes beyond the threshold | | | | | | | |\n");
  if (hidden > 0)
    out.write("\n" + std::to_string(hidden) +
              " more changed entries: see the CSV or JSON output.\n");
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
