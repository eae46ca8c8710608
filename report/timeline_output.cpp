#include "report/timeline_output.hpp"

#include <algorithm>
#include <map>

#include "report/chrome_json_writer.hpp"
#include "report/json_escape.hpp"
#include "report/pftrace_writer.hpp"
#include "report/report_db.hpp"
#include "report/report_files.hpp"
#include "report/runtime_labels.hpp"
#include "report/timeline.hpp"
#include "report/timeline_parts.hpp"

namespace prof::report {

namespace {

std::string process_label(const SourceProcess& p) {
  std::string label = " (";
  if (p.rank) label += "rank " + std::to_string(*p.rank) + ", ";
  return label + "pid " + std::to_string(p.pid) + ", host " + p.host_name + ")";
}

// Viewer pids of process k of a merged trace start at k * kPidStride: room for 499 devices.
constexpr int64_t kPidStride = 1000;

JsonObject merged_other_data(Database& db, const std::vector<SourceProcess>& processes,
                             std::string_view view, int64_t origin_ns) {
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

}  // namespace

TimelineOutput::TimelineOutput(Database& db, const std::vector<SourceProcess>& processes,
                               const std::vector<EventExtents>& extents, bool merged,
                               bool stream_view, Format format,
                               const std::vector<int64_t>& part_starts, const ReportOptions& opt,
                               std::string stem)
    : stream_view_(stream_view), merged_(merged), stem_(std::move(stem)) {
  for (size_t i = 0; i < processes.size(); ++i) {
    select_process(db, processes[i].process_id);
    origin_ns_ = std::min(origin_ns_, timeline_origin_ns(db, extents[i]));
  }
  if (processes.empty()) origin_ns_ = 0;
  if (format == Format::kPftrace) {
    files_.push_back(std::make_unique<OutputFile>(join_path(opt.output_dir, stem_ + ".pftrace"),
                                                  kPftraceSignature, OutputFile::Tolerant{}));
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
    files_.push_back(std::make_unique<OutputFile>(join_path(opt.output_dir, name), kJsonSignature,
                                                  OutputFile::Tolerant{}));
    outputs_.push_back(files_.back().get());
    sinks.push_back(files_.back().get());
    // All parts are open at once: their buffers together stay at about 4 MiB.
    if (part_starts.size() > 1)
      files_.back()->set_flush_bytes(
          std::max<size_t>(size_t{64} << 10, (size_t{4} << 20) / part_starts.size()));
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

TimelineOutput::~TimelineOutput() = default;

void TimelineOutput::begin_process(Database& db, const RowFilter& filter, const SourceProcess& p,
                                   const TimelineLanes& lanes) {
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
  events_ = std::make_unique<TimelineEventWriter>(stream_view_ ? stream_view_events(*ctx_)
                                                               : copy_view_events(*ctx_));
}

void TimelineOutput::end_process() {
  if (stream_view_)
    write_stream_tail(*ctx_);
  else
    write_copy_tail(*ctx_);
  events_.reset();
  ctx_.reset();
}

void TimelineOutput::end(std::vector<std::unique_ptr<OutputFile>>& files, const ReportOptions& opt,
                         ReportResult& result) {
  if (pftrace_) {
    pftrace_->end();
    auto [begin_ns, end_ns] = pftrace_->part_span(0);
    result.timeline_parts.push_back({outputs_.front()->final_path(), "pftrace",
                                     begin_ns - origin_ns_, end_ns - origin_ns_,
                                     pftrace_->events_written()});
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
    result.timeline_parts.push_back({path, std::string(view()), begin_ns - origin_ns_,
                                     end_ns - origin_ns_, writer.part_events(i)});
    largest_bytes = std::max(largest_bytes, outputs_[static_cast<size_t>(i)]->bytes_written());
    largest_events = std::max(largest_events, writer.part_events(i));
  }
  if (writer.parts() > 1) {
    result.notes.push_back(stem_ + ".json would hold " + std::to_string(writer.events_written()) +
                           " events, more than a browser tab opens: split by time into " +
                           std::to_string(writer.parts()) + " parts of at most " +
                           std::to_string(opt.json_max_events) + " events and " +
                           std::to_string(kPartMaxBytes >> 20) + " MB each, " + stem_ +
                           ".1.json to ." + std::to_string(writer.parts()) +
                           ".json (--json-max-events N sets the part size)");
  }
  if (largest_events > kViewerMaxEvents || largest_bytes > kViewerMaxBytes)
    result.warnings.push_back(
        outputs_.front()->final_path() + " holds " + std::to_string(largest_events) + " events (" +
        std::to_string(largest_bytes >> 20) +
        " MB), more than a trace viewer opens (about 1M events / 256 MB); a smaller"
        " --json-max-events splits it into more parts");
  for (auto& file : files_) files.push_back(std::move(file));
  files_.clear();
}

}  // namespace prof::report
