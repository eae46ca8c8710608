#include "report/report.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <thread>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/event_pipe.hpp"
#include "report/html_report.hpp"
#include "report/kernel_filter.hpp"
#include "report/kernel_names.hpp"
#include "report/merged_db.hpp"
#include "report/output_file.hpp"
#include "report/pftrace_writer.hpp"
#include "report/memory.hpp"
#include "report/profile.hpp"
#include "report/range_stats.hpp"
#include "report/report_db.hpp"
#include "report/report_files.hpp"
#include "report/runtime_labels.hpp"
#include "report/stats.hpp"
#include "report/stats_csv.hpp"
#include "report/stats_quantiles.hpp"
#include "report/summary.hpp"
#include "report/timeline.hpp"
#include "report/time_format.hpp"
#include "report/timeline_parts.hpp"
#include "report/trace_csv.hpp"

namespace prof::report {

namespace {

class FileSink final : public TextSink {
 public:
  explicit FileSink(std::FILE* file) : file_(file) {}
  void write(std::string_view text) override { std::fwrite(text.data(), 1, text.size(), file_); }

 private:
  std::FILE* file_;
};

void add_drops(Database& db, std::map<std::string, int64_t>& drops) {
  Statement st = db.prepare("SELECT cause, count FROM drops WHERE count <> 0 ORDER BY cause");
  while (st.step()) drops[std::string(st.column_text(0))] += st.column_int(1);
}

std::string process_label(const SourceProcess& p) {
  std::string label = " (";
  if (p.rank) label += "rank " + std::to_string(*p.rank) + ", ";
  return label + "pid " + std::to_string(p.pid) + ", host " + p.host_name + ")";
}

// Viewer pids of process k of a merged trace start at k * kPidStride: room for 499 devices.
constexpr int64_t kPidStride = 1000;

JsonObject merged_other_data(Database& db, const std::vector<SourceProcess>& processes, std::string_view view,
                             int64_t origin_ns) {
  JsonObject data;
  std::string list = "[";
  std::map<std::string, int64_t> drops;
  for (const SourceProcess& p : processes) {
    select_process(db, p.process_id);
    JsonObject entry;
    entry.add("pid_base", static_cast<int64_t>(p.process_id) * kPidStride);
    for (const auto& [key, value] : read_meta(db)) entry.add(key, value);
    JsonObject process_drops = timeline_drops(db);
    if (!process_drops.empty()) entry.add_raw("drops", process_drops.text());
    add_drops(db, drops);
    list += (list.size() > 1 ? "," : "") + entry.text();
  }
  data.add("merged_processes", static_cast<int64_t>(processes.size()));
  data.add_raw("processes", list + "]");
  data.add("view", view);
  data.add("time_origin_ns", origin_ns);
  JsonObject all_drops;
  for (const auto& [cause, count] : drops) all_drops.add(cause, count);
  if (!all_drops.empty()) data.add_raw("drops", all_drops.text());
  return data;
}

// The timeline files just written, as the HTML report links them: by name, from the same directory
// (one refused at its name is not linked: what is there is not prof's).
std::vector<HtmlTimelineLink> html_timeline_links(const std::vector<TimelinePartFile>& parts,
                                                  const std::vector<std::unique_ptr<OutputFile>>& files) {
  std::vector<HtmlTimelineLink> links;
  for (const TimelinePartFile& part : parts) {
    auto refused = [&](const auto& f) { return f->final_path() == part.path && !f->refused().empty(); };
    if (std::any_of(files.begin(), files.end(), refused)) continue;
    links.push_back({part.path.substr(part.path.rfind('/') + 1), part.begin_ns, part.end_ns, part.events});
  }
  return links;
}

// One timeline: a JSON view (<base>_copy.json or <base>_stream.json) as one file or, when it is too
// big for a viewer, as parts <base>_copy.1.json, ... split by time (report/timeline_parts.hpp); or
// the Perfetto protobuf trace <base>.pftrace, always one file, with the copy view's rows. The
// report's pass over each process's events feeds it (events(), on the pipe's thread) between the
// process's head and tail, which are written on the report's thread.
class TimelineOutput {
 public:
  enum class Format { kJson, kPftrace };
  TimelineOutput(Database& db, const std::vector<SourceProcess>& processes, const std::vector<EventExtents>& extents,
                 bool merged, bool stream_view, Format format, const std::vector<int64_t>& part_starts,
                 const ReportOptions& opt)
      : stream_view_(stream_view),
        merged_(merged),
        stem_(format == Format::kPftrace ? opt.base_name : opt.base_name + (stream_view ? "_stream" : "_copy")) {
    for (size_t i = 0; i < processes.size(); ++i) {
      select_process(db, processes[i].process_id);
      origin_ns_ = std::min(origin_ns_, timeline_origin_ns(db, extents[i]));
    }
    if (processes.empty()) origin_ns_ = 0;
    if (format == Format::kPftrace) {
      files_.push_back(std::make_unique<OutputFile>(join_path(opt.output_dir, stem_ + ".pftrace"), kPftraceSignature,
                                                    OutputFile::Tolerant{}));
      outputs_.push_back(files_.back().get());
      auto writer = std::make_unique<PftraceWriter>(*files_.back(), origin_ns_);
      pftrace_ = writer.get();
      writer_ = std::move(writer);
      pftrace_->begin();
      return;
    }
    std::vector<TextSink*> sinks;
    for (size_t i = 0; i < part_starts.size(); ++i) {
      std::string name =
          part_starts.size() == 1 ? stem_ + ".json" : stem_ + "." + std::to_string(i + 1) + ".json";
      files_.push_back(
          std::make_unique<OutputFile>(join_path(opt.output_dir, name), kJsonSignature, OutputFile::Tolerant{}));
      outputs_.push_back(files_.back().get());
      sinks.push_back(files_.back().get());
      // All parts are open at once: their buffers together stay at about 4 MiB.
      if (part_starts.size() > 1)
        files_.back()->set_flush_bytes(std::max<size_t>(size_t{64} << 10, (size_t{4} << 20) / part_starts.size()));
    }
    auto writer = std::make_unique<ChromeJsonWriter>(sinks, part_starts, origin_ns_);
    json_ = writer.get();
    writer_ = std::move(writer);
    if (merged)
      json_->set_other_data(merged_other_data(db, processes, view(), origin_ns_));
    else
      json_->set_other_data(timeline_other_data(db, view(), origin_ns_));
    json_->begin();
  }

  // The selected process: its names now, then events() for its pass.
  void begin_process(Database& db, const RowFilter& filter, const SourceProcess& p, const TimelineLanes& lanes) {
    ctx_ = std::make_unique<TimelineContext>(TimelineContext{db, filter, *writer_, {}});
    ctx_->lanes = &lanes;
    ctx_->labels = timeline_labels(read_runtimes(db));
    if (merged_) {
      ctx_->pid_base = p.process_id * kPidStride;
      ctx_->process_label = process_label(p);
    }
    if (stream_view_)
      write_stream_head(*ctx_);
    else
      write_copy_head(*ctx_);
    events_ = std::make_unique<TimelineEventWriter>(stream_view_ ? stream_view_events(*ctx_) : copy_view_events(*ctx_));
  }
  bool has_api_args() const { return ctx_->has_api_args; }
  EventConsumer* events() { return events_.get(); }
  void end_process() {
    if (stream_view_)
      write_stream_tail(*ctx_);
    else
      write_copy_tail(*ctx_);
    events_.reset();
    ctx_.reset();
  }

  // Ends every part; the files move to `files` (in part order) and the result lists the parts.
  void end(std::vector<std::unique_ptr<OutputFile>>& files, const ReportOptions& opt, ReportResult& result) {
    if (pftrace_) {
      pftrace_->end();
      auto [begin_ns, end_ns] = pftrace_->part_span(0);
      result.timeline_parts.push_back({outputs_.front()->final_path(), "pftrace", begin_ns - origin_ns_,
                                       end_ns - origin_ns_, pftrace_->events_written()});
      for (auto& file : files_) files.push_back(std::move(file));
      files_.clear();
      return;
    }
    json_->end();
    const ChromeJsonWriter& writer = *json_;
    int64_t largest_bytes = 0, largest_events = 0;
    for (int i = 0; i < writer.parts(); ++i) {
      auto [begin_ns, end_ns] = writer.part_span(i);
      const std::string& path = outputs_[static_cast<size_t>(i)]->final_path();
      result.timeline_parts.push_back(
          {path, std::string(view()), begin_ns - origin_ns_, end_ns - origin_ns_, writer.part_events(i)});
      largest_bytes = std::max(largest_bytes, outputs_[static_cast<size_t>(i)]->bytes_written());
      largest_events = std::max(largest_events, writer.part_events(i));
    }
    if (writer.parts() > 1) {
      result.notes.push_back(stem_ + ".json would hold " + std::to_string(writer.events_written()) +
                             " events, more than a browser tab opens: split by time into " +
                             std::to_string(writer.parts()) + " parts of at most " +
                             std::to_string(opt.json_max_events) + " events and " +
                             std::to_string(kPartMaxBytes >> 20) + " MB each, " + stem_ + ".1.json to ." +
                             std::to_string(writer.parts()) + ".json (--json-max-events N sets the part size)");
    }
    if (largest_events > kViewerMaxEvents || largest_bytes > kViewerMaxBytes)
      result.warnings.push_back(outputs_.front()->final_path() + " holds " + std::to_string(largest_events) +
                                " events (" + std::to_string(largest_bytes >> 20) +
                                " MB), more than a trace viewer opens (about 1M events / 256 MB); a smaller"
                                " --json-max-events splits it into more parts");
    for (auto& file : files_) files.push_back(std::move(file));
    files_.clear();
  }

 private:
  std::string_view view() const { return stream_view_ ? "stream" : "copy"; }

  bool stream_view_, merged_;
  std::string stem_;
  std::vector<std::unique_ptr<OutputFile>> files_;
  std::vector<OutputFile*> outputs_;
  int64_t origin_ns_ = INT64_MAX;
  std::unique_ptr<TraceWriter> writer_;
  ChromeJsonWriter* json_ = nullptr;  // writer_, when the format is JSON
  PftraceWriter* pftrace_ = nullptr;  // writer_, when it is a pftrace
  std::unique_ptr<TimelineContext> ctx_;
  std::unique_ptr<TimelineEventWriter> events_;
};

// Calls `progress` with the rows seen so far, every 64K rows.
class RowProgress final : public EventConsumer {
 public:
  RowProgress(const std::function<void(int64_t)>* progress, int64_t rows_before)
      : progress_(progress), rows_(rows_before) {}
  void api(const ApiRow&) override { count(); }
  void kernel(const KernelRow&) override { count(); }
  void copy(const CopyRow&) override { count(); }
  int64_t rows() const { return rows_; }

 private:
  void count() {
    if ((++rows_ & 0xffff) == 0 && progress_) (*progress_)(rows_);
  }
  const std::function<void(int64_t)>* progress_;
  int64_t rows_;
};

// Markers (--hiptx-trace): <base>.range_stats.csv when the db holds markers, and
// <base>.kernel_by_range.csv on request (--kernel-stats-by-range); the capture windows
// (--trace-start off, --delay, --duration) as a note of the summary.
void write_marker_reports(Database& db, const RowFilter& filter, const std::vector<SourceProcess>& processes,
                          const ReportOptions& opt,
                          const std::function<OutputFile&(const std::string&, std::string_view)>& add_file,
                          ReportResult& result) {
  std::vector<StatsTable> range_parts;
  std::vector<RangeKernelTable> by_range_parts;
  // Run-wide durations, for the merged tables' median and p95: only when there is more than one
  // process (one process's tables come with theirs, and a copy would double the histograms).
  RangeDurations range_durations;
  RangeKernelDurations by_range_durations;
  const bool several = processes.size() > 1;
  bool markers = false;
  CaptureWindowsSummary capture;
  for (const SourceProcess& p : processes) {
    select_process(db, p.process_id);
    markers = markers || has_markers(db);
    range_parts.push_back(query_range_stats(db, several ? &range_durations : nullptr));
    if (opt.kernel_stats_by_range)
      by_range_parts.push_back(
          query_kernel_stats_by_range(db, filter, several ? &by_range_durations : nullptr));
    const CaptureWindowsSummary here = read_capture_summary(db);
    capture.windows += here.windows;
    capture.total_ns += here.total_ns;
    if (capture.control.empty()) capture.control = here.control;
  }
  if (markers) {
    StatsTable ranges = merge_stats_tables(std::move(range_parts));
    if (several) fill_range_quantiles(ranges, range_durations);
    write_stats_csv(ranges, add_file(".range_stats.csv", kCsvSignature));
  }
  if (opt.kernel_stats_by_range) {
    RangeKernelTable by_range = merge_range_kernel_tables(std::move(by_range_parts));
    if (several) fill_range_quantiles(by_range, by_range_durations);
    write_kernel_by_range_csv(by_range, add_file(".kernel_by_range.csv", kKernelByRangeSignature));
  }
  if (!capture.control.empty())
    result.notes.push_back("capture control (" + capture.control + "): recorded " + std::to_string(capture.windows) +
                           " window" + (capture.windows == 1 ? "" : "s") + ", " + human_duration(capture.total_ns) +
                           " in all; calls outside them are not in the profile");
}

// scan_event_times through the kernel filters: the timelines' extents, lanes and split plan count
// the launches the pass writes, no others. Each call counts launches afresh (one process, one
// connection).
void scan_selected_times(Database& db, const RowFilter& filter, const KernelMatcher& matcher,
                         const std::vector<EventConsumer*>& consumers,
                         TimeTables tables = TimeTables::kAll) {
  if (!matcher.filters() || tables == TimeTables::kCalls)
    return scan_event_times(db, filter, consumers, tables);
  const KernelNames names(db, &matcher);
  KernelSelection selection(names, matcher, consumers);
  scan_event_times(db, filter, {&selection}, tables);
}


}  // namespace

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

namespace {

// A run of more than opt.big_run_calls calls: the trace CSVs and the JSON timeline are left out
// (ReportOptions::big_run_calls), with a note; returns the options the files are written with.
ReportOptions without_big_outputs(Database& db, const ReportOptions& opt, ReportResult& result) {
  ReportOptions o = opt;
  if (opt.big_run_calls <= 0 || opt.index_range || !(opt.trace_csv || opt.json)) return o;
  int64_t calls = 0;
  try {
    Statement count = db.prepare("SELECT COUNT(*) FROM api_calls");
    if (count.step()) calls = count.column_int(0);
  } catch (const DbError&) {
    return o;  // the pass says what is wrong with the db
  }
  if (calls <= opt.big_run_calls) return o;
  o.trace_csv = false;
  o.json = false;
  result.notes.push_back(std::to_string(calls) + " API calls: the trace CSVs and the JSON timeline were left out (about " +
                         "160 and 460 MB per million calls)" + (opt.pftrace ? "; the timeline is in the .pftrace" : "") +
                         ". To write them: prof --db " + (opt.written_db.empty() ? "<the db>" : opt.written_db) +
                         " --output-format all");
  return o;
}

// A run whose --index-range holds none of its calls gets empty reports and a note saying why
// (`prof --db` refuses such a range before writing anything: exit 3).
void note_empty_range(Database& db, const ReportOptions& opt, ReportResult& result) {
  if (!opt.index_range || is_merged_db(db)) return;
  try {
    const auto calls = call_numbers(db);
    if (!calls || (opt.index_range->second >= calls->first && opt.index_range->first <= calls->second)) return;
    result.notes.push_back("--index-range " + std::to_string(opt.index_range->first) + ":" +
                           std::to_string(opt.index_range->second) + " holds none of the run's calls (" +
                           std::to_string(calls->first) + " to " + std::to_string(calls->second) +
                           "): the reports are empty");
  } catch (const DbError&) {
    // the pass says what is wrong with the db
  }
}

}  // namespace

ReportResult write_reports_from(Database& db, const ReportOptions& given, std::FILE* summary_out,
                                const std::function<std::string()>& commit_first) {
  // First: a bad regex is the user's error, said before any file exists.
  const KernelMatcher matcher(given.kernels);
  ReportResult result;
  const ReportOptions opt = without_big_outputs(db, given, result);
  note_empty_range(db, opt, result);
  RowFilter filter{opt.index_range};
  std::vector<std::unique_ptr<OutputFile>> files;
  auto add_output = [&](const std::string& suffix, std::string_view signature, bool wanted) -> OutputFile& {
    const std::string path = join_path(opt.output_dir, opt.base_name + suffix);
    files.push_back(wanted ? std::make_unique<OutputFile>(path, signature, OutputFile::Tolerant{})
                           : std::make_unique<OutputFile>(path, OutputFile::Unwanted{}));
    return *files.back();
  };
  // The statistics CSVs (roctx ranges' too) and the HTML page go through this one.
  auto add_file = [&](const std::string& suffix, std::string_view signature) -> OutputFile& {
    const bool html = suffix == ".report.html";
    return add_output(suffix, signature, html ? opt.html : opt.stats_csv);
  };

  std::vector<RuntimeLabels> runtimes;
  std::vector<StatsTable> api;  // parallel to runtimes
  StatsTable kernels;
  std::vector<CopyStats> copy_stats;
  MemoryReport memory;
  std::vector<SummaryStream> summary_streams;  // every process's, for the terminal summary
  std::map<std::string, int64_t> drops;
  HtmlReport html;
  try {
    // One read transaction: every file sees the same snapshot of the database.
    db.exec("BEGIN");
    bool merged = is_merged_db(db);
    filter.calls_numbered_by_id = !merged && calls_numbered_by_id(db);
    std::vector<SourceProcess> processes = read_processes(db);
    std::unique_ptr<Database> second = second_connection(db);
    std::vector<StatsTable> kernel_parts;
    std::vector<EventExtents> extents;  // per process
    std::vector<TimelineLanes> lanes;   // per process
    int64_t total_rows = 0;
    for (const SourceProcess& p : processes) {
      select_process(db, p.process_id);
      add_runtimes(runtimes, read_runtimes(db));
    }
    // Files are created in the order they are listed; the statistics are written after the pass.
    std::vector<OutputFile*> api_csvs;
    for (size_t r = 0; r < runtimes.size(); ++r)
      api_csvs.push_back(&add_file("." + runtimes[r].api_csv_stem + ".csv", kCsvSignature));
    OutputFile& kernel_csv = add_file(".kernel.csv", kCsvSignature);
    OutputFile& summary_json = add_output(".summary.json", kSummarySignature, opt.summary_json);
    // Every dispatch, copy and call (rocprofv3's *_trace.csv), copy and allocation statistics.
    OutputFile& api_trace = add_output(".api_trace.csv", kApiTraceSignature, opt.trace_csv);
    OutputFile& kernel_trace = add_output(".kernel_trace.csv", kKernelTraceSignature, opt.trace_csv);
    OutputFile& copy_trace = add_output(".copy_trace.csv", kCopyTraceSignature, opt.trace_csv);
    OutputFile& copy_stats_csv = add_file(".copy_stats.csv", kCopyStatsSignature);
    OutputFile& memory_csv = add_file(".memory_stats.csv", kMemoryStatsSignature);
    write_api_trace_header(api_trace);
    write_kernel_trace_header(kernel_trace);
    write_copy_trace_header(copy_trace);

    // What the timelines need before their events: each process's extents (the time origin,
    // the split plan) and lanes (the names written first), from a pass of their own.
    // Its own pass reads only the columns those need (scan_event_times).
    PartPlanner planner(opt.json_max_events, kPartMaxBytes);
    for (const SourceProcess& p : processes) {
      select_process(db, p.process_id);
      planner.begin_process(db);
      EventExtents& here = extents.emplace_back();
      TimelineLanes& here_lanes = lanes.emplace_back();
      if (second) {
        // The kernels and copies on the second connection, beside the calls on this one.
        select_process(*second, p.process_id);
        EventExtents device_extents;
        TimelineLanes device_lanes;
        PartPlanner device_planner(opt.json_max_events, kPartMaxBytes);
        device_planner.begin_process(*second);
        std::exception_ptr device_error;
        std::thread device([&] {
          try {
            scan_selected_times(*second, filter, matcher,
                                {&device_extents, &device_lanes, &device_planner},
                                TimeTables::kDeviceWork);
          } catch (...) {
            device_error = std::current_exception();
          }
        });
        try {
          scan_event_times(db, filter, {&here, &here_lanes, &planner}, TimeTables::kCalls);
        } catch (...) {
          device.join();
          throw;
        }
        device.join();
        if (device_error) std::rethrow_exception(device_error);
        here.absorb(device_extents);
        here_lanes.absorb(device_lanes);
        planner.absorb(device_planner);
      } else {
        scan_selected_times(db, filter, matcher, {&here, &here_lanes, &planner});
      }
      total_rows += here.rows;
    }
    const std::vector<int64_t> part_starts =
        planner.plan(db, filter, processes,
                     [&matcher](Database& d, const RowFilter& f, const std::vector<EventConsumer*>& c) {
                       scan_selected_times(d, f, matcher, c);
                     });
    std::vector<std::unique_ptr<TimelineOutput>> timelines;
    using Format = TimelineOutput::Format;
    if (opt.pftrace)
      timelines.push_back(
          std::make_unique<TimelineOutput>(db, processes, extents, merged, false, Format::kPftrace, part_starts, opt));
    if (opt.json)
      timelines.push_back(
          std::make_unique<TimelineOutput>(db, processes, extents, merged, false, Format::kJson, part_starts, opt));
    if (opt.json && opt.group_stream)
      timelines.push_back(
          std::make_unique<TimelineOutput>(db, processes, extents, merged, true, Format::kJson, part_starts, opt));

    std::function<void(int64_t)> progress;
    if (opt.progress) {
      progress = [&opt, total = total_rows](int64_t done) { opt.progress("writing reports", done, total); };
      opt.progress("writing reports", 0, total_rows);
    }
    int64_t rows_before = 0;
    std::vector<std::vector<StatsTable>> api_parts(runtimes.size());
    std::vector<std::vector<CopyStats>> copy_parts;
    std::vector<MemoryReport> memory_parts;
    ProfileBuilder profile;
    // One pass over each process's events feeds every per-event report (report/event_pass.hpp):
    // it reads on this thread, the reports consume on the pipe's (report/event_pipe.hpp).
    for (size_t i = 0; i < processes.size(); ++i) {
      const SourceProcess& p = processes[i];
      select_process(db, p.process_id);
      // The process's kernel names, read once and shared by every pass that names them (issue 42).
      const auto names = std::make_shared<const KernelNames>(db, &matcher);
      ApiStatsCollector api_stats;
      KernelStatsCollector kernel_stats(*names);
      ApiTraceWriter api_rows(db, p.pid, api_trace);
      KernelTraceWriter kernel_rows(db, p.pid, kernel_trace);
      CopyTraceWriter copy_rows(db, p.pid, copy_trace);
      CopyStatsCollector copy_stats(db);
      StreamBusyCollector streams;
      RowProgress rows(opt.progress ? &progress : nullptr, rows_before);
      // Groups of consumers, a thread each: the CSVs and statistics, and each timeline view.
      std::vector<std::vector<EventConsumer*>> groups{
          {&api_stats, &kernel_stats, &profile.add_process(db, names), &api_rows, &kernel_rows,
           &copy_rows, &copy_stats, &streams}};
      for (auto& timeline : timelines) {
        timeline->begin_process(db, filter, p, lanes[i]);
        groups.push_back({timeline->events()});
      }
      {
        if (second) select_process(*second, p.process_id);
        EventPipe pipe(db, std::move(groups), names.get());
        const bool api_args = !timelines.empty() && timelines.front()->has_api_args();
        std::optional<KernelSelection> selection;
        std::vector<EventConsumer*> consumers{&rows, &pipe};
        if (matcher.filters())
          consumers = {&selection.emplace(*names, matcher, std::move(consumers))};
        scan_events(db, filter, consumers, ScanOptions{api_args, second.get()});
        pipe.finish();
      }
      for (auto& timeline : timelines) timeline->end_process();
      profile.end_process();
      rows_before = rows.rows();
      for (size_t r = 0; r < runtimes.size(); ++r)
        api_parts[r].push_back(api_stats.table(db, runtimes[r].runtime_id, r == 0));
      kernel_parts.push_back(kernel_stats.table());
      add_drops(db, drops);
      copy_parts.push_back(copy_stats.take());
      ProcessOverview overview = read_process_overview(db, p);
      std::vector<StreamBusy> busy = streams.take(static_cast<int64_t>(i));
      for (const StreamBusy& s : busy)
        summary_streams.push_back({processes.size() > 1 ? "pid " + std::to_string(p.pid) : "", s,
                                   overview.duration_ns()});
      memory_parts.push_back(read_memory(db, html.add_process(std::move(overview), std::move(busy))));
    }
    for (auto& parts : api_parts) api.push_back(merge_stats_tables(std::move(parts)));
    kernels = merge_stats_tables(std::move(kernel_parts));
    copy_stats = merge_copy_stats(std::move(copy_parts));
    // <base>.summary.json: the run's numbers for CI (prof --compare reads it without the db). Its
    // entries, as they are written, give the tables below their median and p95: the profile's
    // histograms are the only ones the report keeps (report/stats_quantiles.hpp).
    {
      std::vector<std::pair<std::string, StatsTable*>> api_by_runtime;
      for (size_t r = 0; r < runtimes.size(); ++r) api_by_runtime.emplace_back(runtimes[r].name, &api[r]);
      StatsQuantiles quantiles(std::move(api_by_runtime), &kernels, &copy_stats);
      profile.write_json(summary_json, std::ref(quantiles));
    }
    // <base>.<api_csv_stem>.csv per runtime (hipprof's <base>.hiptrace.csv for HIP), one kernel table.
    for (size_t r = 0; r < runtimes.size(); ++r) write_stats_csv(api[r], *api_csvs[r]);
    write_stats_csv(kernels, kernel_csv);
    write_copy_stats(copy_stats, copy_stats_csv);
    memory = merge_memory_reports(std::move(memory_parts));
    write_memory_csv(memory, memory_csv);
    write_marker_reports(db, filter, processes, opt, add_file, result);
    for (auto& timeline : timelines) timeline->end(files, opt, result);
    if (opt.progress) opt.progress("writing reports", total_rows, total_rows);
    // <base>.report.html, the page to open first: the tables above, linking the timeline files.
    std::vector<SummaryApiTable> page_api;
    for (size_t r = 0; r < runtimes.size(); ++r) page_api.push_back({runtimes[r].api_title, api[r]});
    HtmlSummary page{page_api, kernels, copy_stats, memory.series, {drops.begin(), drops.end()},
                     html_timeline_links(result.timeline_parts, files), timeline_labels(runtimes).device,
                     timeline_labels(runtimes).stream};
    html.write(page, add_file(".report.html", kHtmlSignature));
    db.exec("COMMIT");
    for (auto& file : files) file->finish();
  } catch (const DbError& e) {
    // Temp files are removed by the OutputFile destructors on the way out.
    throw as_report_error(e);
  }

  if (!opt.written_db.empty()) result.files_written.push_back(opt.written_db);
  if (commit_first) {
    std::string first = commit_first();
    if (!first.empty()) result.files_written.push_back(first);
  }
  // A file that may not be written (a symlink or a foreign file at its name) costs only itself:
  // the others are still written, and the caller is told which one was not (result.failed).
  for (auto& file : files) {
    if (file->unwanted()) continue;
    if (!file->refused().empty()) {
      result.failed.push_back(file->refused());
      file->commit();  // removes its temp file
      continue;
    }
    try {
      file->commit();
      result.files_written.push_back(file->final_path());
    } catch (const ReportOutputError& e) {
      result.failed.push_back(e.what());
    }
  }
  if (result.files_written.empty() && !result.failed.empty()) throw ReportOutputError(result.failed.front());
  if (opt.summary_to_stdout && summary_out) {
    FileSink sink(summary_out);
    std::vector<SummaryApiTable> api_tables;
    for (size_t r = 0; r < runtimes.size(); ++r) api_tables.push_back({runtimes[r].api_title, api[r]});
    SummaryInput input{std::move(api_tables), kernels, {drops.begin(), drops.end()}, result.files_written};
    input.copies = copy_stats;
    input.streams = std::move(summary_streams);
    input.stream_label = timeline_labels(runtimes).stream;
    input.memory = memory.series;
    input.device_label = timeline_labels(runtimes).device;
    input.notes = result.notes;
    write_summary(input, sink);
    std::fflush(summary_out);
  }
  return result;
}

std::string process_heading(const std::string& db_path) {
  std::unique_ptr<Database> db = open_report_db(db_path);
  const SourceProcess p = process_from_meta(*db);
  std::string heading = "== Process " + std::to_string(p.pid);
  if (p.rank) heading += ", rank " + std::to_string(*p.rank);
  if (!p.host_name.empty()) heading += ", host " + p.host_name;
  return heading + ": " + p.command_line + " ==";
}

void write_combined_summary(const std::vector<std::string>& db_paths, std::FILE* summary_out,
                            const KernelFilterOptions& kernel_filters) {
  if (!summary_out || db_paths.empty()) return;
  const KernelMatcher matcher(kernel_filters);
  std::vector<RuntimeLabels> runtimes;
  std::map<int64_t, std::vector<StatsTable>> api_parts;  // by runtime id
  std::vector<StatsTable> kernel_parts;
  std::vector<std::vector<CopyStats>> copy_parts;
  std::vector<MemoryReport> memory_parts;
  std::map<std::string, int64_t> drops;
  // The processes' durations together: the combined tables' median and p95 (not their parts').
  ProfileBuilder profile;
  const RowFilter filter{};
  try {
    for (const std::string& path : db_paths) {
      std::unique_ptr<Database> db = open_report_db(path);
      db->exec("BEGIN");
      const std::vector<RuntimeLabels> here = read_runtimes(*db);
      add_runtimes(runtimes, here);
      // Kernels as the filters keep and name them, as in each process's own summary.
      const auto names = std::make_shared<const KernelNames>(*db, &matcher);
      ApiStatsCollector api_stats;
      KernelStatsCollector kernel_stats(*names);
      CopyStatsCollector copy_stats(*db);
      std::vector<EventConsumer*> consumers{&api_stats, &kernel_stats, &copy_stats,
                                            &profile.add_process(*db, names)};
      std::optional<KernelSelection> selection;
      if (matcher.filters()) consumers = {&selection.emplace(*names, matcher, std::move(consumers))};
      scan_events(*db, filter, consumers);
      profile.end_process();  // before the db closes: the builder reads it until then
      for (size_t r = 0; r < here.size(); ++r)
        api_parts[here[r].runtime_id].push_back(api_stats.table(*db, here[r].runtime_id, r == 0));
      kernel_parts.push_back(kernel_stats.table());
      copy_parts.push_back(copy_stats.take());
      memory_parts.push_back(read_memory(*db));
      add_drops(*db, drops);
      db->exec("COMMIT");
    }
  } catch (const DbError& e) {
    throw as_report_error(e);
  }
  std::vector<StatsTable> api;
  for (const RuntimeLabels& r : runtimes) api.push_back(merge_stats_tables(std::move(api_parts[r.runtime_id])));
  StatsTable kernels = merge_stats_tables(std::move(kernel_parts));
  std::vector<CopyStats> copies = merge_copy_stats(std::move(copy_parts));
  {
    std::vector<std::pair<std::string, StatsTable*>> api_by_runtime;
    for (size_t r = 0; r < runtimes.size(); ++r) api_by_runtime.emplace_back(runtimes[r].name, &api[r]);
    StatsQuantiles quantiles(std::move(api_by_runtime), &kernels, &copies);
    profile.visit(std::ref(quantiles));
  }
  const MemoryReport memory = merge_memory_reports(std::move(memory_parts));
  std::vector<SummaryApiTable> api_tables;
  for (size_t r = 0; r < runtimes.size(); ++r) api_tables.push_back({runtimes[r].api_title, api[r]});
  FileSink sink(summary_out);
  sink.write("== All " + std::to_string(db_paths.size()) + " processes ==\n");
  SummaryInput input{std::move(api_tables), kernels, {drops.begin(), drops.end()}, {}};
  input.copies = std::move(copies);
  input.memory = memory.series;
  input.device_label = timeline_labels(runtimes).device;
  write_summary(input, sink, /*with_files=*/false);
  std::fflush(summary_out);
}

ReportResult write_reports(const std::string& db_path, const ReportOptions& opt, std::FILE* summary_out) {
  if (opt.base_name.empty() || opt.base_name.find('/') != std::string::npos)
    throw ReportError("report name '" + opt.base_name + "' must be a non-empty file name without '/'");
  if (opt.index_range && opt.index_range->first > opt.index_range->second)
    throw ReportError("index range " + std::to_string(opt.index_range->first) + "-" +
                      std::to_string(opt.index_range->second) + " is empty");
  std::unique_ptr<Database> db = open_report_db(db_path);
  return write_reports_from(*db, opt, summary_out);
}

}  // namespace prof::report
