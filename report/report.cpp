#include "report/report.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/event_pipe.hpp"
#include "report/html_report.hpp"
#include "report/kernel_filter.hpp"
#include "report/kernel_names.hpp"
#include "report/memory.hpp"
#include "report/merged_db.hpp"
#include "report/output_file.hpp"
#include "report/pftrace_writer.hpp"
#include "report/profile.hpp"
#include "report/range_stats.hpp"
#include "report/report_db.hpp"
#include "report/report_files.hpp"
#include "report/report_outputs.hpp"
#include "report/runtime_labels.hpp"
#include "report/stats.hpp"
#include "report/stats_csv.hpp"
#include "report/stats_quantiles.hpp"
#include "report/summary.hpp"
#include "report/time_format.hpp"
#include "report/timeline.hpp"
#include "report/timeline_output.hpp"
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

// The db's API calls (every process's, in a merged db), counted once for the choices that depend
// on the run's size; nullopt when they cannot be counted (the pass says what is wrong with the db).
std::optional<int64_t> count_api_calls(Database& db) {
  try {
    Statement count = db.prepare("SELECT COUNT(*) FROM main.api_calls");
    return count.step() ? count.column_int(0) : 0;
  } catch (const DbError&) {
    return std::nullopt;
  }
}

// A run of more than opt.big_run_calls calls: the trace CSVs and the JSON timeline are left out
// (ReportOptions::big_run_calls), with a note; returns the options the files are written with.
ReportOptions without_big_outputs(const ReportOptions& opt, std::optional<int64_t> calls,
                                  ReportResult& result) {
  ReportOptions o = opt;
  if (opt.big_run_calls <= 0 || opt.index_range || !(opt.trace_csv || opt.json)) return o;
  if (!calls || *calls <= opt.big_run_calls) return o;
  o.trace_csv = false;
  o.json = false;
  result.notes.push_back(
      std::to_string(*calls) +
      " API calls: the trace CSVs and the JSON timeline were left out (about " +
      "160 and 460 MB per million calls)" +
      (opt.pftrace ? "; the timeline is in the .pftrace" : "") + ". To write them: prof --db " +
      (opt.written_db.empty() ? "<the db>" : opt.written_db) + " --output-format all");
  return o;
}

// The findings for the summary's block and the HTML report's section: the whole run's, so none
// with --index-range or the kernel filters, and none over findings_max_calls API calls.
void analyze_run(ReportRun& run, std::optional<int64_t> calls) {
  FindingsView& view = run.findings;
  const std::string db = run.opt.written_db.empty() ? run.db.path() : run.opt.written_db;
  view.command = "prof --db " + db + " --analyze";
  view.db_name = db.substr(db.rfind('/') + 1);
  if (run.opt.index_range || run.matcher.filters()) {
    view.note = "are not analysed with --index-range or the kernel filters (they cover whole runs)";
    return;
  }
  if (!calls) return;  // the pass fails on this db, saying why
  if (run.opt.findings_max_calls <= 0 || *calls > run.opt.findings_max_calls) {
    view.note = "are not analysed in the reports of " + std::to_string(*calls) +
                " API calls (the rules hold a process's calls in memory)";
    return;
  }
  run.analysis = analyze(run.db, run.opt.analyze);
  view.analysis = &*run.analysis;
}

// A run whose --index-range holds none of its calls gets empty reports and a note saying why
// (`prof --db` refuses such a range before writing anything: exit 3).
void note_empty_range(Database& db, const ReportOptions& opt, ReportResult& result) {
  if (!opt.index_range || is_merged_db(db)) return;
  try {
    const auto calls = call_numbers(db);
    if (!calls ||
        (opt.index_range->second >= calls->first && opt.index_range->first <= calls->second))
      return;
    result.notes.push_back("--index-range " + std::to_string(opt.index_range->first) + ":" +
                           std::to_string(opt.index_range->second) +
                           " holds none of the run's calls (" + std::to_string(calls->first) +
                           " to " + std::to_string(calls->second) + "): the reports are empty");
  } catch (const DbError&) {
    // the pass says what is wrong with the db
  }
}

// The db's processes and runtimes, and how its calls are read.
void read_run(ReportRun& run) {
  run.merged = is_merged_db(run.db);
  run.filter.calls_numbered_by_id = !run.merged && calls_numbered_by_id(run.db);
  run.processes = read_processes(run.db);
  run.second = second_connection(run.db);
  for (const SourceProcess& p : run.processes) {
    select_process(run.db, p.process_id);
    add_runtimes(run.runtimes, read_runtimes(run.db));
  }
}

// The light pass of one process on two connections: the calls on this thread, the kernels and
// copies on the second connection, read by a thread of their own.
void scan_times_beside(ReportRun& run, const SourceProcess& p, EventExtents& here,
                       TimelineLanes& here_lanes, PartPlanner& planner) {
  select_process(*run.second, p.process_id);
  EventExtents device_extents;
  TimelineLanes device_lanes;
  PartPlanner device_planner(run.opt.json_max_events, kPartMaxBytes);
  device_planner.begin_process(*run.second);
  std::exception_ptr device_error;
  std::thread device([&] {
    try {
      scan_selected_times(*run.second, run.filter, run.matcher,
                          {&device_extents, &device_lanes, &device_planner},
                          TimeTables::kDeviceWork);
    } catch (...) {
      device_error = std::current_exception();
    }
  });
  try {
    scan_event_times(run.db, run.filter, {&here, &here_lanes, &planner}, TimeTables::kCalls);
  } catch (...) {
    device.join();
    throw;
  }
  device.join();
  if (device_error) std::rethrow_exception(device_error);
  here.absorb(device_extents);
  here_lanes.absorb(device_lanes);
  planner.absorb(device_planner);
}

// What the timelines need before their events: each process's extents (the time origin, the split
// plan) and lanes (the names written first), from a pass of their own that reads only the columns
// those need (scan_event_times).
void plan_timelines(ReportRun& run) {
  PartPlanner planner(run.opt.json_max_events, kPartMaxBytes);
  for (const SourceProcess& p : run.processes) {
    select_process(run.db, p.process_id);
    planner.begin_process(run.db);
    EventExtents& here = run.extents.emplace_back();
    TimelineLanes& here_lanes = run.lanes.emplace_back();
    if (run.second)
      scan_times_beside(run, p, here, here_lanes, planner);
    else
      scan_selected_times(run.db, run.filter, run.matcher, {&here, &here_lanes, &planner});
    run.total_rows += here.rows;
  }
  run.part_starts =
      planner.plan(run.db, run.filter, run.processes,
                   [&run](Database& d, const RowFilter& f, const std::vector<EventConsumer*>& c) {
                     scan_selected_times(d, f, run.matcher, c);
                   });
}

// Before the pass: the files the pass writes into (with their headers) and the timelines.
void open_outputs(ReportRun& run) {
  run.outputs.resize(report_outputs().size());
  for (size_t k = 0; k < report_outputs().size(); ++k) {
    const ReportOutput& out = report_outputs()[k];
    if (is_timeline(out.shape)) {
      if (!out.wanted(run)) continue;
      using Format = TimelineOutput::Format;
      const Format format = out.shape == OutputShape::kPftrace ? Format::kPftrace : Format::kJson;
      std::string stem =
          run.opt.base_name + std::string(out.suffix.substr(0, out.suffix.rfind('.')));
      run.outputs[k].timeline = std::make_unique<TimelineOutput>(
          run.db, run.processes, run.extents, run.merged, out.shape == OutputShape::kStreamView,
          format, run.part_starts, run.opt, std::move(stem));
    } else if (out.begin || out.rows) {
      open_files(run, k);
      if (out.begin)
        for (auto& file : run.outputs[k].files) out.begin(*file);
    }
  }
}

std::vector<TimelineOutput*> timelines(ReportRun& run) {
  std::vector<TimelineOutput*> list;
  for (OutputSlot& slot : run.outputs)
    if (slot.timeline) list.push_back(slot.timeline.get());
  return list;
}

// Each process's part of the tables, merged when every process is read.
struct PassParts {
  std::vector<std::vector<StatsTable>> api;  // per runtime, per process
  std::vector<StatsTable> kernels;
  std::vector<std::vector<CopyStats>> copies;
  std::vector<MemoryReport> memory;
};

// Reads the selected process's events once, through the kernel filters, into the consumer groups:
// it reads on this thread, the groups consume on the pipe's (report/event_pipe.hpp).
void scan_into(ReportRun& run, const SourceProcess& p,
               std::vector<std::vector<EventConsumer*>> groups, const KernelNames& names,
               RowProgress& rows) {
  if (run.second) select_process(*run.second, p.process_id);
  EventPipe pipe(run.db, std::move(groups), &names);
  const std::vector<TimelineOutput*> views = timelines(run);
  const bool api_args = !views.empty() && views.front()->has_api_args();
  std::optional<KernelSelection> selection;
  std::vector<EventConsumer*> consumers{&rows, &pipe};
  if (run.matcher.filters())
    consumers = {&selection.emplace(names, run.matcher, std::move(consumers))};
  scan_events(run.db, run.filter, consumers, ScanOptions{api_args, run.second.get()});
  pipe.finish();
}

// The outputs' consumers that write the selected process's rows as the pass reads them.
std::vector<std::unique_ptr<EventConsumer>> row_writers(ReportRun& run, int64_t pid) {
  std::vector<std::unique_ptr<EventConsumer>> writers;
  for (size_t k = 0; k < report_outputs().size(); ++k) {
    const ReportOutput& out = report_outputs()[k];
    if (!out.rows) continue;
    for (auto& file : run.outputs[k].files) writers.push_back(out.rows(run.db, pid, *file));
  }
  return writers;
}

// One pass over process i's events feeds every per-event report (report/event_pass.hpp).
void pass_process(ReportRun& run, size_t i, PassParts& parts, RowProgress& rows) {
  Database& db = run.db;
  const SourceProcess& p = run.processes[i];
  select_process(db, p.process_id);
  // The process's kernel names, read once and shared by every pass that names them (issue 42).
  const auto names = std::make_shared<const KernelNames>(db, &run.matcher);
  ApiStatsCollector api_stats;
  KernelStatsCollector kernel_stats(*names);
  CopyStatsCollector copy_stats(db);
  StreamBusyCollector streams;
  // Groups of consumers, a thread each: the CSVs and statistics, and each timeline view.
  std::vector<EventConsumer*> tables{&api_stats, &kernel_stats,
                                     &run.profile.add_process(db, names)};
  std::vector<std::unique_ptr<EventConsumer>> writers = row_writers(run, p.pid);
  for (auto& writer : writers) tables.push_back(writer.get());
  tables.insert(tables.end(), {&copy_stats, &streams});
  std::vector<std::vector<EventConsumer*>> groups{std::move(tables)};
  for (TimelineOutput* timeline : timelines(run)) {
    timeline->begin_process(db, run.filter, p, run.lanes[i]);
    groups.push_back({timeline->events()});
  }
  scan_into(run, p, std::move(groups), *names, rows);
  for (TimelineOutput* timeline : timelines(run)) timeline->end_process();
  run.profile.end_process();
  for (size_t r = 0; r < run.runtimes.size(); ++r)
    parts.api[r].push_back(api_stats.table(db, run.runtimes[r].runtime_id, r == 0));
  parts.kernels.push_back(kernel_stats.table());
  add_drops(db, run.drops);
  parts.copies.push_back(copy_stats.take());
  ProcessOverview overview = read_process_overview(db, p);
  std::vector<StreamBusy> busy = streams.take(static_cast<int64_t>(i));
  for (const StreamBusy& s : busy)
    run.summary_streams.push_back({run.processes.size() > 1 ? "pid " + std::to_string(p.pid) : "",
                                   s, overview.duration_ns()});
  parts.memory.push_back(
      read_memory(db, run.html.add_process(std::move(overview), std::move(busy))));
}

PassParts pass_events(ReportRun& run) {
  std::function<void(int64_t)> progress;
  if (run.opt.progress) {
    progress = [&run](int64_t done) { run.opt.progress("writing reports", done, run.total_rows); };
    run.opt.progress("writing reports", 0, run.total_rows);
  }
  RowProgress rows(run.opt.progress ? &progress : nullptr, 0);
  PassParts parts;
  parts.api.resize(run.runtimes.size());
  for (size_t i = 0; i < run.processes.size(); ++i) pass_process(run, i, parts, rows);
  return parts;
}

// Markers (--hiptx-trace): the range statistics when the db holds markers, kernel statistics by
// range on request (--kernel-stats-by-range); the capture windows (--trace-start off, --delay,
// --duration) as a note of the summary.
void read_marker_tables(ReportRun& run) {
  std::vector<StatsTable> range_parts;
  std::vector<RangeKernelTable> by_range_parts;
  // Run-wide durations, for the merged tables' median and p95: only when there is more than one
  // process (one process's tables come with theirs, and a copy would double the histograms).
  RangeDurations range_durations;
  RangeKernelDurations by_range_durations;
  const bool several = run.processes.size() > 1;
  bool markers = false;
  CaptureWindowsSummary capture;
  for (const SourceProcess& p : run.processes) {
    select_process(run.db, p.process_id);
    markers = markers || has_markers(run.db);
    range_parts.push_back(query_range_stats(run.db, several ? &range_durations : nullptr));
    if (run.opt.kernel_stats_by_range)
      by_range_parts.push_back(
          query_kernel_stats_by_range(run.db, run.filter, several ? &by_range_durations : nullptr));
    const CaptureWindowsSummary here = read_capture_summary(run.db);
    capture.windows += here.windows;
    capture.total_ns += here.total_ns;
    if (capture.control.empty()) capture.control = here.control;
  }
  if (markers) {
    run.ranges = merge_stats_tables(std::move(range_parts));
    if (several) fill_range_quantiles(*run.ranges, range_durations);
  }
  if (run.opt.kernel_stats_by_range) {
    run.kernels_by_range = merge_range_kernel_tables(std::move(by_range_parts));
    if (several) fill_range_quantiles(*run.kernels_by_range, by_range_durations);
  }
  if (!capture.control.empty())
    run.result.notes.push_back(
        "capture control (" + capture.control + "): recorded " + std::to_string(capture.windows) +
        " window" + (capture.windows == 1 ? "" : "s") + ", " + human_duration(capture.total_ns) +
        " in all; calls outside them are not in the profile");
}

void merge_tables(ReportRun& run, PassParts parts) {
  for (auto& api : parts.api) run.api.push_back(merge_stats_tables(std::move(api)));
  run.kernels = merge_stats_tables(std::move(parts.kernels));
  run.copy_stats = merge_copy_stats(std::move(parts.copies));
  run.memory = merge_memory_reports(std::move(parts.memory));
}

// After the pass, in the list's order (those marked `first` first); each timeline ends.
void write_outputs(ReportRun& run) {
  for (const bool first : {true, false}) {
    for (size_t k = 0; k < report_outputs().size(); ++k) {
      const ReportOutput& out = report_outputs()[k];
      OutputSlot& slot = run.outputs[k];
      if (out.first != first) continue;
      if (slot.timeline) slot.timeline->end(slot.files, run.opt, run.result);
      if (!out.write) continue;
      open_files(run, k);
      for (size_t i = 0; i < slot.files.size(); ++i) out.write(run, *slot.files[i], i);
    }
  }
  if (run.opt.progress) run.opt.progress("writing reports", run.total_rows, run.total_rows);
}

// Renames every finished file into place, in the list's order, after the db this run wrote and the
// file `commit_first` names. A file that may not be written (a symlink or a foreign file at its
// name) costs only itself: the others are still written, and the caller is told which one was not
// (result.failed).
void commit_outputs(ReportRun& run, const std::function<std::string()>& commit_first) {
  ReportResult& result = run.result;
  if (!run.opt.written_db.empty()) result.files_written.push_back(run.opt.written_db);
  if (commit_first) {
    std::string first = commit_first();
    if (!first.empty()) result.files_written.push_back(first);
  }
  for (OutputSlot& slot : run.outputs) {
    for (auto& file : slot.files) {
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
  }
  if (result.files_written.empty() && !result.failed.empty())
    throw ReportOutputError(result.failed.front());
}

void print_summary(ReportRun& run, std::FILE* summary_out) {
  FileSink sink(summary_out);
  std::vector<SummaryApiTable> api_tables;
  for (size_t r = 0; r < run.runtimes.size(); ++r)
    api_tables.push_back({run.runtimes[r].api_title, run.api[r]});
  SummaryInput input{std::move(api_tables),
                     run.kernels,
                     {run.drops.begin(), run.drops.end()},
                     run.result.files_written};
  input.copies = run.copy_stats;
  input.streams = std::move(run.summary_streams);
  input.stream_label = timeline_labels(run.runtimes).stream;
  input.memory = run.memory.series;
  input.device_label = timeline_labels(run.runtimes).device;
  input.notes = run.result.notes;
  input.findings = run.findings;
  write_summary(input, sink);
  std::fflush(summary_out);
}

}  // namespace

// The report driver: read the db's processes, plan the timelines, open the outputs, one pass over
// the events, the tables, then every output of the list (report_outputs.hpp), committed together
// at the end.
ReportResult write_reports_from(Database& db, const ReportOptions& given, std::FILE* summary_out,
                                const std::function<std::string()>& commit_first) {
  // First: a bad regex is the user's error, said before any file exists.
  const KernelMatcher matcher(given.kernels);
  ReportResult result;
  const std::optional<int64_t> calls = count_api_calls(db);
  const ReportOptions opt = without_big_outputs(given, calls, result);
  note_empty_range(db, opt, result);
  ReportRun run(db, opt, result, matcher);
  try {
    // One read transaction: every file sees the same snapshot of the database.
    db.exec("BEGIN");
    analyze_run(run, calls);
    read_run(run);
    plan_timelines(run);
    open_outputs(run);
    merge_tables(run, pass_events(run));
    read_marker_tables(run);
    write_outputs(run);
    db.exec("COMMIT");
    run.second.reset();
    for (OutputSlot& slot : run.outputs) {
      slot.timeline.reset();
      for (auto& file : slot.files) file->finish();
    }
  } catch (const DbError& e) {
    // Temp files are removed by the OutputFile destructors on the way out.
    throw as_report_error(e);
  }
  commit_outputs(run, commit_first);
  if (opt.summary_to_stdout && summary_out) print_summary(run, summary_out);
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
      if (matcher.filters())
        consumers = {&selection.emplace(*names, matcher, std::move(consumers))};
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
  for (const RuntimeLabels& r : runtimes)
    api.push_back(merge_stats_tables(std::move(api_parts[r.runtime_id])));
  StatsTable kernels = merge_stats_tables(std::move(kernel_parts));
  std::vector<CopyStats> copies = merge_copy_stats(std::move(copy_parts));
  {
    std::vector<std::pair<std::string, StatsTable*>> api_by_runtime;
    for (size_t r = 0; r < runtimes.size(); ++r)
      api_by_runtime.emplace_back(runtimes[r].name, &api[r]);
    StatsQuantiles quantiles(std::move(api_by_runtime), &kernels, &copies);
    profile.visit(std::ref(quantiles));
  }
  const MemoryReport memory = merge_memory_reports(std::move(memory_parts));
  std::vector<SummaryApiTable> api_tables;
  for (size_t r = 0; r < runtimes.size(); ++r)
    api_tables.push_back({runtimes[r].api_title, api[r]});
  FileSink sink(summary_out);
  sink.write("== All " + std::to_string(db_paths.size()) + " processes ==\n");
  SummaryInput input{std::move(api_tables), kernels, {drops.begin(), drops.end()}, {}};
  input.copies = std::move(copies);
  input.memory = memory.series;
  input.device_label = timeline_labels(runtimes).device;
  write_summary(input, sink, /*with_files=*/false);
  std::fflush(summary_out);
}

ReportResult write_reports(const std::string& db_path, const ReportOptions& opt,
                           std::FILE* summary_out) {
  if (opt.base_name.empty() || opt.base_name.find('/') != std::string::npos)
    throw ReportError("report name '" + opt.base_name +
                      "' must be a non-empty file name without '/'");
  if (opt.index_range && opt.index_range->first > opt.index_range->second)
    throw ReportError("index range " + std::to_string(opt.index_range->first) + "-" +
                      std::to_string(opt.index_range->second) + " is empty");
  std::unique_ptr<Database> db = open_report_db(db_path);
  return write_reports_from(*db, opt, summary_out);
}

}  // namespace prof::report
