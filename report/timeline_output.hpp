// One timeline file set, as the report driver writes it (report/report.cpp): a TraceWriter over
// the timeline's files, fed by the pass over each process's events.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/merged_db.hpp"
#include "report/output_file.hpp"
#include "report/report.hpp"
#include "report/report_db.hpp"
#include "report/timeline_events.hpp"

namespace prof::report {

class ChromeJsonWriter;
class PftraceWriter;
class TraceWriter;

// One timeline: a JSON view (<stem>.json: <base>_copy.json or <base>_stream.json) as one file or,
// when it is too big for a viewer, as parts <stem>.1.json, ... split by time
// (report/timeline_parts.hpp); or the Perfetto protobuf trace <stem>.pftrace (<base>.pftrace),
// always one file, with the copy view's rows. The report's pass over each process's events feeds
// it (events(), on the pipe's thread) between the process's head and tail, which are written on
// the report's thread.
class TimelineOutput {
 public:
  enum class Format { kJson, kPftrace };
  TimelineOutput(Database& db, const std::vector<SourceProcess>& processes,
                 const std::vector<EventExtents>& extents, bool merged, bool stream_view,
                 Format format, const std::vector<int64_t>& part_starts, const ReportOptions& opt,
                 std::string stem);
  ~TimelineOutput();

  // The selected process: its names now, then events() for its pass.
  void begin_process(Database& db, const RowFilter& filter, const SourceProcess& p,
                     const TimelineLanes& lanes);
  bool has_api_args() const { return ctx_->has_api_args; }
  EventConsumer* events() { return events_.get(); }
  void end_process();

  // Ends every part; the files move to `files` (in part order) and the result lists the parts.
  void end(std::vector<std::unique_ptr<OutputFile>>& files, const ReportOptions& opt,
           ReportResult& result);

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

}  // namespace prof::report
