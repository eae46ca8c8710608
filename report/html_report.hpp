// <base>.report.html: the page a person opens first (docs/formats.md, "HTML report"). One
// self-contained file: inline CSS and SVG, no script, nothing fetched. It is built from what the
// other reports already aggregated (per-name statistics, copy directions, memory series, drops)
// plus, per process, its meta, each stream's busy time and its memory curves (report/
// run_overview.hpp, report/memory_curve.hpp): memory does not grow with the number of events.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/findings.hpp"
#include "report/memory.hpp"
#include "report/memory_curve.hpp"
#include "report/report_db.hpp"
#include "report/run_overview.hpp"
#include "report/stats.hpp"
#include "report/summary.hpp"
#include "report/text_sink.hpp"
#include "report/trace_csv.hpp"

namespace prof::report {

inline constexpr std::string_view kHtmlSignature = "<!DOCTYPE html>\n<!-- prof report";

// One timeline file the page links to: its name in the same directory (a relative link), the
// time range it covers (ns from the timeline's ts 0) and its event count.
struct HtmlTimelineLink {
  std::string file;
  int64_t begin_ns, end_ns, events;
};

// What the other reports aggregated over every process.
struct HtmlSummary {
  std::vector<SummaryApiTable> api;  // one per runtime
  const StatsTable& kernels;
  const std::vector<CopyStats>& copies;
  const std::vector<MemorySeries>& memory;  // peak and at-exit per series
  std::vector<std::pair<std::string, int64_t>> drops;
  std::vector<HtmlTimelineLink> timelines;
  std::string device_label = "Device";
  std::string stream_label = "Stream";
  FindingsView findings = {};
};

class HtmlReport {
 public:
  // Reads the selected process's overview and stream busy times. The returned callback, given to
  // read_memory for the same process, samples its memory curves; it refers to this object, which
  // must outlive its calls.
  MemoryChange add_process(Database& db, const RowFilter& filter, const SourceProcess& process);
  // The same from pieces already read (tests).
  MemoryChange add_process(ProcessOverview overview, std::vector<StreamBusy> streams);

  void write(const HtmlSummary& summary, TextSink& out) const;

 private:
  using CurveKey = std::tuple<size_t, MemoryKind, int64_t>;  // process, kind, device
  std::vector<ProcessOverview> processes_;
  std::vector<StreamBusy> streams_;
  std::map<CurveKey, MemoryCurveSampler> curves_;
};

}  // namespace prof::report
