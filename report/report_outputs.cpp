#include "report/report_outputs.hpp"

#include <functional>
#include <iterator>
#include <utility>

#include "report/profile.hpp"
#include "report/report_files.hpp"
#include "report/stats_csv.hpp"
#include "report/stats_quantiles.hpp"

namespace prof::report {

namespace {

template <class Writer>
std::unique_ptr<EventConsumer> rows_of(Database& db, int64_t pid, OutputFile& file) {
  return std::make_unique<Writer>(db, pid, file);
}

void write_summary_json(ReportRun& run, OutputFile& file, size_t) {
  std::vector<std::pair<std::string, StatsTable*>> api_by_runtime;
  for (size_t r = 0; r < run.runtimes.size(); ++r)
    api_by_runtime.emplace_back(run.runtimes[r].name, &run.api[r]);
  StatsQuantiles quantiles(std::move(api_by_runtime), &run.kernels, &run.copy_stats);
  run.profile.write_json(file, std::ref(quantiles));
}

// The timeline files just written, as the HTML report links them: by name, from the same directory
// (one refused at its name is not linked: what is there is not prof's).
std::vector<HtmlTimelineLink> html_timeline_links(const ReportRun& run) {
  std::vector<HtmlTimelineLink> links;
  for (const TimelinePartFile& part : run.result.timeline_parts) {
    bool refused = false;
    for (const OutputSlot& slot : run.outputs)
      for (const auto& f : slot.files)
        refused = refused || (f->final_path() == part.path && !f->refused().empty());
    if (refused) continue;
    links.push_back(
        {part.path.substr(part.path.rfind('/') + 1), part.begin_ns, part.end_ns, part.events});
  }
  return links;
}

// <base>.report.html, the page to open first: the tables, linking the timeline files.
void write_html(ReportRun& run, OutputFile& file, size_t) {
  std::vector<SummaryApiTable> page_api;
  for (size_t r = 0; r < run.runtimes.size(); ++r)
    page_api.push_back({run.runtimes[r].api_title, run.api[r]});
  HtmlSummary page{page_api,
                   run.kernels,
                   run.copy_stats,
                   run.memory.series,
                   {run.drops.begin(), run.drops.end()},
                   html_timeline_links(run),
                   timeline_labels(run.runtimes).device,
                   timeline_labels(run.runtimes).stream,
                   run.findings};
  run.html.write(page, file);
}

void write_api_csv(ReportRun& run, OutputFile& file, size_t r) {
  write_stats_csv(run.api[r], file);
}
void write_kernel_csv(ReportRun& run, OutputFile& file, size_t) {
  write_stats_csv(run.kernels, file);
}
void write_copy_csv(ReportRun& run, OutputFile& file, size_t) {
  write_copy_stats(run.copy_stats, file);
}
void write_memory(ReportRun& run, OutputFile& file, size_t) { write_memory_csv(run.memory, file); }
void write_ranges(ReportRun& run, OutputFile& file, size_t) {
  if (run.ranges) write_stats_csv(*run.ranges, file);
}
void write_by_range(ReportRun& run, OutputFile& file, size_t) {
  if (run.kernels_by_range) write_kernel_by_range_csv(*run.kernels_by_range, file);
}

bool wants_stats(const ReportRun& run) { return run.opt.stats_csv; }
bool wants_trace(const ReportRun& run) { return run.opt.trace_csv; }
bool wants_summary(const ReportRun& run) { return run.opt.summary_json; }
// Range statistics only when the db holds markers (--hiptx-trace), kernels by range on request.
bool wants_ranges(const ReportRun& run) { return run.opt.stats_csv && run.ranges; }
bool wants_by_range(const ReportRun& run) { return run.opt.stats_csv && run.kernels_by_range; }
bool wants_pftrace(const ReportRun& run) { return run.opt.pftrace; }
bool wants_json(const ReportRun& run) { return run.opt.json; }
bool wants_stream_json(const ReportRun& run) { return run.opt.json && run.opt.group_stream; }
bool wants_html(const ReportRun& run) { return run.opt.html; }

using enum OutputShape;

// Every output, in the order the summary lists them under "Files written". An output is one
// writer and one line here.
constexpr ReportOutput kOutputs[] = {
    // <base>.<api_csv_stem>.csv per runtime: hipprof's <base>.hiptrace.csv for HIP.
    {"stats", ".csv", kCsvSignature, wants_stats, kPerRuntime, {}, {}, write_api_csv},
    {"stats", ".kernel.csv", kCsvSignature, wants_stats, kFile, {}, {}, write_kernel_csv},
    // The run's numbers for CI: prof --compare reads it without the db. Written first: see `first`.
    {"summary",
     ".summary.json",
     kSummarySignature,
     wants_summary,
     kFile,
     {},
     {},
     write_summary_json,
     true},
    // Every call, dispatch and copy as the pass reads it (rocprofv3's *_trace.csv).
    {"trace", ".api_trace.csv", kApiTraceSignature, wants_trace, kFile, write_api_trace_header,
     rows_of<ApiTraceWriter>},
    {"trace", ".kernel_trace.csv", kKernelTraceSignature, wants_trace, kFile,
     write_kernel_trace_header, rows_of<KernelTraceWriter>},
    {"trace", ".copy_trace.csv", kCopyTraceSignature, wants_trace, kFile, write_copy_trace_header,
     rows_of<CopyTraceWriter>},
    {"stats", ".copy_stats.csv", kCopyStatsSignature, wants_stats, kFile, {}, {}, write_copy_csv},
    {"stats", ".memory_stats.csv", kMemoryStatsSignature, wants_stats, kFile, {}, {}, write_memory},
    {"stats", ".range_stats.csv", kCsvSignature, wants_ranges, kFile, {}, {}, write_ranges},
    {"stats",
     ".kernel_by_range.csv",
     kKernelByRangeSignature,
     wants_by_range,
     kFile,
     {},
     {},
     write_by_range},
    // The timelines (TimelineOutput): Perfetto's protobuf trace and the JSON views.
    {"pftrace", ".pftrace", kPftraceSignature, wants_pftrace, kPftrace},
    {"json", "_copy.json", kJsonSignature, wants_json, kCopyView},
    {"json", "_stream.json", kJsonSignature, wants_stream_json, kStreamView},
    // Last: it links the timeline files just written.
    {"html", ".report.html", kHtmlSignature, wants_html, kFile, {}, {}, write_html},
};

}  // namespace

std::span<const ReportOutput> report_outputs() { return kOutputs; }

bool is_timeline(OutputShape shape) {
  return shape == OutputShape::kPftrace || shape == OutputShape::kCopyView ||
         shape == OutputShape::kStreamView;
}

void open_files(ReportRun& run, size_t k) {
  OutputSlot& slot = run.outputs[k];
  if (slot.opened) return;
  slot.opened = true;
  const ReportOutput& out = kOutputs[k];
  const bool wanted = out.wanted(run);
  auto add = [&](const std::string& name) {
    const std::string path =
        join_path(run.opt.output_dir, run.opt.base_name + name + std::string(out.suffix));
    slot.files.push_back(
        wanted ? std::make_unique<OutputFile>(path, out.signature, OutputFile::Tolerant{})
               : std::make_unique<OutputFile>(path, OutputFile::Unwanted{}));
  };
  if (out.shape == OutputShape::kPerRuntime)
    for (const RuntimeLabels& r : run.runtimes) add("." + r.api_csv_stem);
  else
    add("");
}

}  // namespace prof::report
