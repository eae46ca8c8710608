// The findings as text (a block per finding), as JSON (docs/findings.md, "JSON"), as the terminal
// summary's block and as the HTML report's section.
#include <algorithm>
#include <cstdio>

#include "report/findings.hpp"
#include "report/html_escape.hpp"
#include "report/json_escape.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

std::string share_percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", share * 100);
  return text;
}

std::string share_number(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", share);
  return text;
}

std::string rank_json(const std::optional<int64_t>& rank) {
  return rank ? std::to_string(*rank) : "null";
}

// "  label           value": labels padded to one column, so a value never touches its label.
void text_line(TextSink& out, const char* label, const std::string& value) {
  char head[32];
  std::snprintf(head, sizeof head, "   %-15s ", label);
  out.write(head);
  out.write(value);
  out.write("\n");
}

void write_text_finding(const Finding& f, size_t number, TextSink& out) {
  out.write("\n" + std::to_string(number) + ". [" + f.rule + "] " + f.title + "\n");
  std::string where = "pid " + std::to_string(f.pid);
  if (f.rank) where += ", rank " + std::to_string(*f.rank);
  text_line(out, "time at stake",
            human_duration(f.time_at_stake_ns) + " (" + share_percent(f.share) + " of the run; " +
                where + ")");
  text_line(out, "estimated as", f.method);
  text_line(out, "count", std::to_string(f.count));
  text_line(out, "evidence", f.evidence);
  for (size_t i = 0; i < f.sites.size(); ++i)
    text_line(out, i == 0 ? "call sites" : "", f.sites[i].text);
  text_line(out, "fix", f.fix);
}

void write_text(const Analysis& analysis, TextSink& out) {
  const size_t n = analysis.findings.size();
  out.write("prof --analyze: " +
            (n == 0 ? std::string("no findings")
                    : std::to_string(n) + (n == 1 ? " finding" : " findings")) +
            " over a run of " + human_duration(analysis.run_ns) +
            (n > 1 ? ", longest time at stake first" : "") + "\n");
  for (size_t i = 0; i < n; ++i) write_text_finding(analysis.findings[i], i + 1, out);
}

void write_json_site(const FindingSite& site, std::string& json) {
  json += "{\"api\":";
  append_json_string(json, site.api);
  json += ",\"calls\":" + std::to_string(site.calls) +
          ",\"first_sequence\":" + std::to_string(site.first_sequence) + ",\"sequences\":[";
  for (size_t i = 0; i < site.sequences.size(); ++i)
    json += (i ? "," : "") + std::to_string(site.sequences[i]);
  json += "],\"text\":";
  append_json_string(json, site.text);
  json += "}";
}

void write_json_finding(const Finding& f, std::string& json) {
  json += "{\"rule\":";
  append_json_string(json, f.rule);
  json += ",\"title\":";
  append_json_string(json, f.title);
  json += ",\"time_at_stake_ns\":" + std::to_string(f.time_at_stake_ns) +
          ",\"share\":" + share_number(f.share) + ",\"method\":";
  append_json_string(json, f.method);
  json += ",\"count\":" + std::to_string(f.count) + ",\"sites\":[";
  for (size_t i = 0; i < f.sites.size(); ++i) {
    if (i) json += ",";
    write_json_site(f.sites[i], json);
  }
  json += "],\"evidence\":";
  append_json_string(json, f.evidence);
  json += ",\"fix\":";
  append_json_string(json, f.fix);
  json += ",\"process_id\":" + std::to_string(f.process_id) + ",\"pid\":" + std::to_string(f.pid) +
          ",\"rank\":" + rank_json(f.rank) + "}";
}

void write_json(const Analysis& analysis, TextSink& out) {
  std::string json = "{\"findings_version\":" + std::to_string(kFindingsVersion) +
                     ",\"run_ns\":" + std::to_string(analysis.run_ns) + ",\"processes\":[";
  for (size_t i = 0; i < analysis.processes.size(); ++i) {
    const ProcessSpan& p = analysis.processes[i];
    json += std::string(i ? "," : "") + "{\"process_id\":" + std::to_string(p.process_id) +
            ",\"pid\":" + std::to_string(p.pid) + ",\"rank\":" + rank_json(p.rank) +
            ",\"begin_ns\":" + std::to_string(p.begin_ns) +
            ",\"end_ns\":" + std::to_string(p.end_ns) +
            ",\"run_ns\":" + std::to_string(p.end_ns - p.begin_ns) + "}";
  }
  json += "],\"findings\":[";
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    if (i) json += ",";
    write_json_finding(analysis.findings[i], json);
  }
  json += "]}\n";
  out.write(json);
}

void html_item(TextSink& out, const char* term, const std::string& html) {
  out.write(std::string("<dt>") + term + "</dt><dd>" + html + "</dd>");
}

void write_html_finding(const Finding& f, size_t number, TextSink& out) {
  out.write("<section class=\"finding\" id=\"finding-" + std::to_string(number) + "\"><h3>" +
            std::to_string(number) + ". " + html_escaped(f.title) + "</h3><dl>");
  html_item(out, "time at stake",
            "<b>" + human_duration(f.time_at_stake_ns) + "</b>, " + share_percent(f.share) +
                " of the run (pid " + std::to_string(f.pid) +
                (f.rank ? ", rank " + std::to_string(*f.rank) : std::string()) + "); " +
                html_escaped(f.method));
  html_item(out, "rule",
            "<code>" + html_escaped(f.rule) + "</code>, " + std::to_string(f.count) +
                (f.count == 1 ? " instance" : " instances"));
  html_item(out, "evidence", html_escaped(f.evidence));
  std::string sites;
  for (const FindingSite& site : f.sites)
    sites += (sites.empty() ? "" : "<br>") + ("<code>" + html_escaped(site.text) + "</code>");
  if (!sites.empty()) html_item(out, "call sites", sites);
  html_item(out, "fix", html_escaped(f.fix));
  out.write("</dl></section>\n");
}

}  // namespace

void write_findings_html(const FindingsView& view, TextSink& out) {
  out.write("<h2 id=\"findings\">Findings</h2>\n");
  if (!view.analysis) {
    out.write("<p class=\"none\">Findings " + html_escaped(view.note) + ": <code>prof --db " +
              html_escaped(view.db_name) + " --analyze</code>.</p>\n");
    return;
  }
  const std::vector<Finding>& findings = view.analysis->findings;
  if (findings.empty()) {
    out.write(
        "<p class=\"none\">No findings: no rule of docs/findings.md put more than 0.1% of "
        "the run at stake.</p>\n");
    return;
  }
  out.write(
      "<p>What to fix, longest time at stake first (each rule's definition: "
      "docs/findings.md).</p>\n");
  for (size_t i = 0; i < findings.size(); ++i) write_html_finding(findings[i], i + 1, out);
}

void write_findings_summary(const FindingsView& view, size_t most, TextSink& out) {
  if (!view.analysis) {
    if (!view.note.empty()) out.write("\nFindings " + view.note + ": " + view.command + "\n");
    return;
  }
  const std::vector<Finding>& findings = view.analysis->findings;
  if (findings.empty()) {
    out.write("\nFindings: none (prof --analyze's rules, docs/findings.md)\n");
    return;
  }
  const size_t shown = std::min(most, findings.size());
  out.write(
      "\nFindings (" +
      (shown < findings.size() ? "the top " + std::to_string(shown) + " of " : std::string()) +
      std::to_string(findings.size()) + "; every one with its evidence: " + view.command + "):\n");
  for (size_t i = 0; i < shown; ++i) {
    const Finding& f = findings[i];
    out.write("  " + std::to_string(i + 1) + ". " + human_duration(f.time_at_stake_ns) + " (" +
              share_percent(f.share) + ")  [" + f.rule + "] " + f.title + "\n");
    if (!f.sites.empty()) out.write("     at " + f.sites.front().text + "\n");
    out.write("     fix: " + f.fix + "\n");
  }
}

void write_findings(const Analysis& analysis, FindingsFormat format, TextSink& out) {
  if (format == FindingsFormat::kJson)
    write_json(analysis, out);
  else
    write_text(analysis, out);
}

}  // namespace prof::report
