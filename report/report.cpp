#include "report/report.hpp"

#include <memory>

#include "collector/sqlite_db.hpp"
#include "report/output_file.hpp"
#include "report/report_db.hpp"
#include "report/stats.hpp"
#include "report/stats_csv.hpp"
#include "report/summary.hpp"
#include "report/timeline.hpp"

namespace prof::report {

namespace {

class FileSink final : public TextSink {
 public:
  explicit FileSink(std::FILE* file) : file_(file) {}
  void write(std::string_view text) override { std::fwrite(text.data(), 1, text.size(), file_); }

 private:
  std::FILE* file_;
};

std::vector<std::pair<std::string, int64_t>> read_drops(Database& db) {
  std::vector<std::pair<std::string, int64_t>> drops;
  Statement st = db.prepare("SELECT cause, count FROM drops WHERE count <> 0 ORDER BY cause");
  while (st.step()) drops.emplace_back(std::string(st.column_text(0)), st.column_int(1));
  return drops;
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace

ReportResult write_reports(const std::string& db_path, const ReportOptions& opt, std::FILE* summary_out) {
  if (opt.base_name.empty() || opt.base_name.find('/') != std::string::npos)
    throw ReportError("report name '" + opt.base_name + "' must be a non-empty file name without '/'");
  if (opt.index_range && opt.index_range->first > opt.index_range->second)
    throw ReportError("index range " + std::to_string(opt.index_range->first) + "-" +
                      std::to_string(opt.index_range->second) + " is empty");
  std::unique_ptr<Database> db = open_report_db(db_path);
  RowFilter filter{opt.index_range};
  std::vector<std::unique_ptr<OutputFile>> files;
  auto add_file = [&](const std::string& suffix) -> OutputFile& {
    files.push_back(std::make_unique<OutputFile>(join_path(opt.output_dir, opt.base_name + suffix)));
    return *files.back();
  };

  StatsTable api, kernels;
  std::vector<std::pair<std::string, int64_t>> drops;
  try {
    // One read transaction: every file sees the same snapshot of the database.
    db->exec("BEGIN");
    api = query_api_stats(*db, filter);
    kernels = query_kernel_stats(*db, filter);
    drops = read_drops(*db);
    write_stats_csv(api, add_file(".hiptrace.csv"));
    write_stats_csv(kernels, add_file(".kernel.csv"));
    write_copy_timeline(*db, filter, add_file("_copy.json"));
    if (opt.group_stream) write_stream_timeline(*db, filter, add_file("_stream.json"));
    db->exec("COMMIT");
    for (auto& file : files) file->finish();
  } catch (const DbError& e) {
    // Temp files are removed by the OutputFile destructors on the way out.
    throw as_report_error(e);
  }

  ReportResult result;
  for (auto& file : files) {
    file->commit();
    result.files_written.push_back(file->final_path());
  }
  if (opt.summary_to_stdout && summary_out) {
    FileSink sink(summary_out);
    write_summary({api, kernels, std::move(drops), result.files_written}, sink);
    std::fflush(summary_out);
  }
  return result;
}

}  // namespace prof::report
