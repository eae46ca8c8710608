#include "report/html_report.hpp"

#include <algorithm>
#include <ctime>

#include "report/html_charts.hpp"
#include "report/html_escape.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

constexpr size_t kTopBars = 10;

constexpr std::string_view kStyle = R"css(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 40px;color:#1d2430;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d5dae1;padding-bottom:3px}
h3{font-size:15px;margin:18px 0 6px}
.finding{border-left:3px solid #d0603b;padding:2px 12px;margin:12px 0}.finding h3{margin:4px 0}
.finding dl{display:grid;grid-template-columns:7em 1fr;gap:2px 10px;margin:4px 0}.finding dt{color:#667}
.finding dd{margin:0}.finding code{font-family:ui-monospace,monospace;font-size:13px;word-break:break-all}
.command{font-family:ui-monospace,monospace;background:#f3f5f8;padding:4px 8px;border-radius:4px;word-break:break-all}
nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{padding:3px 10px;border-bottom:1px solid #e3e7ec;text-align:left;vertical-align:top}
th{background:#f3f5f8;font-weight:600}
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.name{font-family:ui-monospace,monospace;font-size:13px;word-break:break-all;max-width:640px}
.scroll{max-height:36em;overflow:auto;display:inline-block}
.warning{background:#fff4e0;border:1px solid #e8b04a;padding:8px 12px;border-radius:4px}
.none{color:#667}
svg text{font:12px system-ui,sans-serif;fill:#1d2430}
svg text.value,svg text.tick{fill:#556}
svg .bar{fill:#3b7dd8}svg[data-chart=streams] .bar{fill:#2f9e6e}svg[data-chart^=api] .bar{fill:#8a5cd0}
svg .curve{fill:none;stroke:#d0603b;stroke-width:1.5}svg .peak{fill:#d0603b}svg .axis{stroke:#99a}
svg .part{fill:#3b7dd8;opacity:.75}svg a:hover .part{opacity:1}
footer{margin-top:30px;color:#667;font-size:12px}
)css";

// Beside the average, as in the CSVs: nearest rank, within 0.8% (report/duration_histogram.hpp).
constexpr std::string_view kQuantileHeadings =
    "<th class=\"n\" title=\"nearest rank, within 0.8%\">Median</th>"
    "<th class=\"n\" title=\"nearest rank, within 0.8%\">p95</th>";

std::string esc(std::string_view text) { return html_escaped(text); }
std::string num(int64_t value) { return std::to_string(value); }
std::string td(const std::string& text) { return "<td>" + text + "</td>"; }
std::string tdn(const std::string& text) { return "<td class=\"n\">" + text + "</td>"; }

std::string utc_time(int64_t unix_ns) {
  std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm tm{};
  if (!gmtime_r(&seconds, &tm)) return "?";
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

std::string process_name(const ProcessOverview& p) {
  std::string name = "pid " + num(p.process.pid);
  if (p.process.rank) name += ", rank " + num(*p.process.rank);
  return name;
}

void write_header(const std::vector<ProcessOverview>& processes, TextSink& out) {
  std::string title =
      processes.size() != 1 ? num(static_cast<int64_t>(processes.size())) + " processes"
      : processes.front().process.command_line.empty() ? "(command not recorded)"
                                                       : processes.front().process.command_line;
  out.write(
      "<!DOCTYPE html>\n<!-- prof report: self-contained, nothing is fetched -->\n<html "
      "lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n"
      "<title>prof report: " +
      esc(title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n");
  out.write("<header>\n<h1>prof report</h1>\n");
  if (processes.size() == 1)
    out.write("<p class=\"command\" id=\"command\">" + esc(title) + "</p>\n");
  out.write(
      "<table id=\"processes\"><tr><th>Process</th><th>Host</th><th>Command</th><th>Started</th>"
      "<th class=\"n\" title=\"the process's start to the last end it recorded (a call's return or "
      "a "
      "device end)\">Duration</th><th class=\"n\" title=\"from the program's end until prof had "
      "completed "
      "its database\">Database written in</th><th>Runtimes</th></tr>\n");
  for (const ProcessOverview& p : processes) {
    std::string runtimes = p.runtimes.empty() ? "none traced" : p.runtimes;
    if (p.incomplete) runtimes += " (cut short: still running when prof stopped)";
    out.write("<tr>" + td(esc(process_name(p))) + td(esc(p.process.host_name)) +
              "<td class=\"name\">" + esc(p.process.command_line) + "</td>" +
              td(p.wall_start_unix_ns ? utc_time(*p.wall_start_unix_ns) : "?") +
              tdn(human_duration(p.duration_ns())) + tdn(human_duration(p.db_build_ns())) +
              td(esc(runtimes)) + "</tr>\n");
  }
  out.write("</table>\n</header>\n");
}

void write_drops(const std::vector<std::pair<std::string, int64_t>>& drops, TextSink& out) {
  if (drops.empty()) return;
  int64_t total = 0;
  for (const auto& [cause, count] : drops) total += count;
  out.write("<p class=\"warning\" id=\"drops\"><b>" + num(total) +
            " events were dropped; the report is incomplete:</b>");
  for (const auto& [cause, count] : drops) out.write(" " + esc(cause) + " " + num(count) + ";");
  out.write("</p>\n");
}

// Top names by total time as bars, then every name in a table.
void write_stats(const StatsTable& table, std::string_view id, const char* count_word,
                 TextSink& out) {
  if (table.rows.empty()) {
    out.write(std::string("<p class=\"none\">No ") + count_word + ".</p>\n");
    return;
  }
  int64_t untimed = 0;
  for (const NameStats& row : table.rows) untimed += row.calls - row.timed_calls;
  std::string heading = num(table.calls) + " " + count_word + ", " +
                        num(static_cast<int64_t>(table.rows.size())) + " names, total " +
                        human_duration(table.total_ns);
  if (untimed > 0) heading += ", " + num(untimed) + " without device times";
  out.write("<p>" + esc(heading) + ". Top " +
            num(static_cast<int64_t>(std::min(kTopBars, table.rows.size()))) +
            " by total time:</p>\n");
  std::vector<HtmlBar> bars;
  for (size_t i = 0; i < table.rows.size() && i < kTopBars; ++i) {
    const NameStats& row = table.rows[i];
    bars.push_back(
        {row.name, row.total_ns,
         human_duration(row.total_ns) + ", " + percent_text(row.total_ns, table.total_ns) + "%"});
  }
  write_bar_chart(out, id, bars);
  out.write("<div class=\"scroll\"><table class=\"stats\" id=\"" + esc(id) +
            "-table\"><tr><th>Name</th><th class=\"n\">Calls</th><th class=\"n\">Total</th>"
            "<th class=\"n\">Average</th>" +
            std::string(kQuantileHeadings) +
            "<th class=\"n\">Min</th><th class=\"n\">Max</th><th class=\"n\">Percent</th></tr>\n");
  for (const NameStats& row : table.rows)
    out.write("<tr><td class=\"name\">" + esc(row.name) + "</td>" + tdn(num(row.calls)) +
              tdn(human_duration(row.total_ns)) + tdn(human_duration(row.average_ns())) +
              tdn(human_duration(row.median_ns)) + tdn(human_duration(row.p95_ns)) +
              tdn(human_duration(row.min_ns)) + tdn(human_duration(row.max_ns)) +
              tdn(percent_text(row.total_ns, table.total_ns) + "%") + "</tr>\n");
  out.write("</table></div>\n");
}

void write_copies(const std::vector<CopyStats>& copies, TextSink& out) {
  out.write("<h2 id=\"copies\">Copies and memsets</h2>\n");
  if (copies.empty()) {
    out.write("<p class=\"none\">No copies or memsets.</p>\n");
    return;
  }
  std::vector<CopyStats> rows = copies;
  std::sort(rows.begin(), rows.end(), [](const CopyStats& a, const CopyStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.direction < b.direction;
  });
  out.write(
      "<table id=\"copies-table\"><tr><th>Direction</th><th class=\"n\">Calls</th><th "
      "class=\"n\">Bytes</th>"
      "<th class=\"n\">Device time</th><th class=\"n\">Average</th>" +
      std::string(kQuantileHeadings) + "<th class=\"n\">Bandwidth GB/s</th></tr>\n");
  for (const CopyStats& s : rows)
    out.write("<tr>" + td(esc(s.direction)) + tdn(num(s.calls)) + tdn(human_bytes(s.bytes)) +
              tdn(human_duration(s.total_ns)) +
              tdn(human_duration(s.timed_calls > 0 ? rounded_div(s.total_ns, s.timed_calls) : 0)) +
              tdn(human_duration(s.median_ns)) + tdn(human_duration(s.p95_ns)) +
              tdn(bandwidth_text(s.timed_bytes, s.total_ns)) + "</tr>\n");
  out.write("</table>\n");
}

}  // namespace

MemoryChange HtmlReport::add_process(Database& db, const RowFilter& filter,
                                     const SourceProcess& process) {
  return add_process(read_process_overview(db, process),
                     query_stream_busy(db, filter, static_cast<int64_t>(processes_.size())));
}

MemoryChange HtmlReport::add_process(ProcessOverview overview, std::vector<StreamBusy> streams) {
  const size_t index = processes_.size();
  processes_.push_back(std::move(overview));
  for (StreamBusy& s : streams) {
    s.process_index = static_cast<int64_t>(index);
    streams_.push_back(s);
  }
  return [this, index](const MemorySeries& series, int64_t at_ns, int64_t bytes) {
    curves_[{index, series.kind, series.device}].add(at_ns, bytes);
  };
}

namespace {

std::string series_name(MemoryKind kind, int64_t device, const std::string& device_label) {
  if (kind == MemoryKind::kHost) return "Host, pinned";
  return device_label + " " + std::to_string(device) + ", " + memory_kind_name(kind);
}

void write_streams(const std::vector<StreamBusy>& streams,
                   const std::vector<ProcessOverview>& processes, const HtmlSummary& summary,
                   TextSink& out) {
  out.write("<h2 id=\"streams\">" + esc(summary.stream_label) + " busy time</h2>\n");
  if (streams.empty()) {
    out.write("<p class=\"none\">No device work with device times.</p>\n");
    return;
  }
  const bool several = processes.size() > 1;
  out.write("<p>The sum of each " + esc(summary.stream_label) +
            "'s kernel, copy and memset device times, and its share of the process's run.</p>\n");
  constexpr int64_t kMillionths = 1'000'000;
  std::vector<HtmlBar> bars;
  std::string rows;
  for (const StreamBusy& s : streams) {
    const ProcessOverview& p = processes[static_cast<size_t>(s.process_index)];
    std::string name = summary.device_label + " " + num(s.device) + ", " + summary.stream_label +
                       " " + num(s.stream_index);
    if (several) name = process_name(p) + ": " + name;
    const int64_t run = p.duration_ns();
    // In 128 bits: a busy time of hours times a million overflows 64.
    const int64_t share =
        run > 0 ? static_cast<int64_t>(static_cast<__int128>(s.busy_ns) * kMillionths / run) : 0;
    bars.push_back(
        {name, share,
         human_duration(s.busy_ns) + ", " + percent_text(s.busy_ns, run) + "% of the run"});
    rows += "<tr>" + (several ? td(esc(process_name(p))) : "") + tdn(num(s.device)) +
            tdn(num(s.stream_index)) + tdn(num(s.operations)) + tdn(num(s.kernels)) +
            tdn(num(s.busy_ns)) + tdn(human_duration(s.busy_ns)) +
            tdn(percent_text(s.busy_ns, run) + "%") + tdn(human_duration(s.last_ns - s.first_ns)) +
            tdn(percent_text(s.busy_ns, s.last_ns - s.first_ns) + "%") + "</tr>\n";
  }
  write_bar_chart(out, "streams", bars, kMillionths);
  out.write(
      "<table id=\"streams-table\"><tr>" + std::string(several ? "<th>Process</th>" : "") +
      "<th class=\"n\">" + esc(summary.device_label) + "</th><th class=\"n\">" +
      esc(summary.stream_label) +
      "</th><th class=\"n\">Operations</th><th class=\"n\">Kernels</th><th class=\"n\">Busy ns</th>"
      "<th class=\"n\">Busy</th><th class=\"n\">% of the run</th><th class=\"n\">Active span</th>"
      "<th class=\"n\">% of the span</th></tr>\n" +
      rows + "</table>\n");
}

void write_memory(
    const std::vector<MemorySeries>& memory, const std::vector<ProcessOverview>& processes,
    const std::map<std::tuple<size_t, MemoryKind, int64_t>, MemoryCurveSampler>& curves,
    const std::string& device_label, TextSink& out) {
  out.write("<h2 id=\"memory\">Memory in use</h2>\n");
  if (memory.empty()) {
    out.write("<p class=\"none\">No allocations recorded.</p>\n");
    return;
  }
  out.write(
      "<table id=\"memory-table\"><tr><th>Memory</th><th class=\"n\">Peak</th><th class=\"n\">At "
      "exit</th>"
      "<th class=\"n\">Allocations</th><th class=\"n\">Frees</th></tr>\n");
  for (const MemorySeries& m : memory)
    out.write("<tr>" + td(esc(series_name(m.kind, m.device, device_label))) +
              tdn(human_bytes(m.peak_bytes)) + tdn(human_bytes(m.final_bytes)) +
              tdn(num(m.allocations)) + tdn(num(m.frees)) + "</tr>\n");
  out.write("</table>\n");
  for (const auto& [key, sampler] : curves) {
    const auto& [index, kind, device] = key;
    const ProcessOverview& p = processes[index];
    std::string label = series_name(kind, device, device_label);
    if (processes.size() > 1) label = process_name(p) + ": " + label;
    const std::vector<CurvePoint> points = sampler.points();
    out.write("<h3>" + esc(label) + "</h3>\n");
    write_memory_chart(out, label, points, p.start_ns, p.end_ns);
    if (static_cast<size_t>(sampler.changes()) > points.size())
      out.write("<p class=\"none\">" + num(sampler.changes()) + " changes drawn as " +
                num(static_cast<int64_t>(points.size())) +
                " points; the highest of them is the peak.</p>\n");
  }
}

void write_timelines(const std::vector<HtmlTimelineLink>& links, TextSink& out) {
  out.write("<h2 id=\"timeline\">Timeline</h2>\n");
  if (links.empty()) {
    out.write("<p class=\"none\">No timeline file was written.</p>\n");
    return;
  }
  const bool pftrace = std::any_of(links.begin(), links.end(), [](const HtmlTimelineLink& l) {
    return l.file.ends_with(".pftrace");
  });
  if (pftrace)
    out.write(
        "<p>The full timeline (every call, kernel, copy, marker and memory counter) is in the "
        "files below, in "
        "this page's directory. Open the <b>.pftrace</b> first, in <b>ui.perfetto.dev</b> (\"Open "
        "trace "
        "file\"): one file for the whole run, times in ns, an arrow from each call to its kernel "
        "or copy (the "
        "browser's own engine opens up to about 2M calls; beyond, Perfetto's trace_processor "
        "--httpd). "
        "The Chrome trace-event JSON files hold the same timeline and also open in catapult's "
        "trace viewer; "
        "each opens on its own.</p>\n");
  else
    out.write(
        "<p>The full timeline (every call, kernel, copy and memory counter) is in the Chrome "
        "trace-event JSON "
        "below, in this page's directory. Open one in <b>ui.perfetto.dev</b> (\"Open trace "
        "file\"); each file "
        "opens on its own.</p>\n");
  // A row per file: its name, then its time range on an axis from the timeline's ts 0 to its end.
  int64_t end = 1;
  for (const HtmlTimelineLink& l : links) end = std::max(end, l.end_ns);
  constexpr int kWidth = 760, kAxis = 230, kRow = 20;
  const int rows_height = static_cast<int>(links.size()) * kRow;
  const int height = rows_height + 22;
  auto x = [&](int64_t t) {
    return kAxis + static_cast<double>(std::clamp<int64_t>(t, 0, end)) / static_cast<double>(end) *
                       (kWidth - kAxis - 2);
  };
  std::string svg = "<svg class=\"timeline-strip\" width=\"" + num(kWidth) + "\" height=\"" +
                    num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
                    "\" role=\"img\">\n";
  int y = 0;
  for (const HtmlTimelineLink& l : links) {
    const double x0 = x(l.begin_ns), x1 = x(std::max(l.end_ns, l.begin_ns));
    char rect[160];
    std::snprintf(rect, sizeof rect,
                  "<rect class=\"part\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>", x0,
                  y + 3, std::max(x1 - x0, 2.0), kRow - 6);
    svg += "<a href=\"" + esc(url_file_name(l.file)) + "\"><title>" + esc(l.file) + ": " +
           human_duration(l.begin_ns) + " to " + human_duration(l.end_ns) + ", " + num(l.events) +
           " events</title><text x=\"0\" y=\"" + num(y + 14) + "\">" + html_escaped(l.file, 34) +
           "</text>" + rect + "</a>\n";
    y += kRow;
  }
  svg += "<line class=\"axis\" x1=\"" + num(kAxis) + "\" y1=\"" + num(rows_height + 2) +
         "\" x2=\"" + num(kWidth - 2) + "\" y2=\"" + num(rows_height + 2) +
         "\"/><text class=\"tick\" x=\"" + num(kAxis) + "\" y=\"" + num(rows_height + 18) +
         "\">0</text><text class=\"tick\" x=\"" + num(kWidth - 2) + "\" y=\"" +
         num(rows_height + 18) + "\" text-anchor=\"end\">" + esc(human_duration(end)) + "</text>\n";
  out.write(svg + "</svg>\n");
  out.write(
      "<table id=\"timeline-table\"><tr><th>File</th><th class=\"n\">From</th><th "
      "class=\"n\">To</th>"
      "<th class=\"n\">Events</th></tr>\n");
  for (const HtmlTimelineLink& l : links)
    out.write("<tr><td class=\"name\"><a class=\"timeline-file\" href=\"" +
              esc(url_file_name(l.file)) + "\">" + esc(l.file) + "</a></td>" +
              tdn(human_duration(l.begin_ns)) + tdn(human_duration(l.end_ns)) + tdn(num(l.events)) +
              "</tr>\n");
  out.write("</table>\n");
}

}  // namespace

void HtmlReport::write(const HtmlSummary& summary, TextSink& out) const {
  write_header(processes_, out);
  write_drops(summary.drops, out);
  out.write(
      "<nav><a href=\"#findings\">Findings</a><a href=\"#kernels\">Kernels</a><a href=\"#api\">API "
      "calls</a><a "
      "href=\"#copies\">Copies</a>"
      "<a href=\"#streams\">" +
      esc(summary.stream_label) +
      "s</a><a href=\"#memory\">Memory</a>"
      "<a href=\"#timeline\">Timeline</a></nav>\n<main>\n");
  write_findings_html(summary.findings, out);
  out.write("<h2 id=\"kernels\">Kernels</h2>\n");
  write_stats(summary.kernels, "kernels", "kernel launches", out);
  out.write("<h2 id=\"api\">API calls</h2>\n");
  if (summary.api.empty()) out.write("<p class=\"none\">No API calls.</p>\n");
  for (size_t r = 0; r < summary.api.size(); ++r) {
    out.write("<h3>" + esc(summary.api[r].title) + "</h3>\n");
    write_stats(summary.api[r].table, "api-" + num(static_cast<int64_t>(r)), "calls", out);
  }
  write_copies(summary.copies, out);
  write_streams(streams_, processes_, summary, out);
  write_memory(summary.memory, processes_, curves_, summary.device_label, out);
  write_timelines(summary.timelines, out);
  std::string version = processes_.empty() ? "" : processes_.front().prof_version;
  out.write("</main>\n<footer>Written by prof" + (version.empty() ? "" : " " + esc(version)) +
            ". Times are device times for kernels and copies, host times for API "
            "calls.</footer>\n</body>\n</html>\n");
}

}  // namespace prof::report
