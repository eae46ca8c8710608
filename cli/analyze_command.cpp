// prof --db FILE --analyze and prof --db-merge DIR --analyze: the findings of a database
// (report/findings.hpp) on stdout, and an exit status a CI job can fail on (docs/findings.md).
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/merge.hpp"
#include "report/findings.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"

namespace prof::cli {

namespace {

// Exit status 1: a finding's share of the run is above --analyze-fail-above (the other codes
// are prof's own failures, cli/exit_codes.hpp).
constexpr int kExitFindingAbove = 1;

}  // namespace

int analyze_file(const std::string& path, const Options& o) {
  const report::FindingsFormat format =
      o.format == "json" ? report::FindingsFormat::kJson : report::FindingsFormat::kText;
  report::Analysis analysis;
  try {
    std::unique_ptr<Database> db = report::open_report_db(path);
    analysis = report::analyze(*db, analyze_options(o));
  } catch (const report::ReportError& e) {
    return fail(report_exit_code(e), e.what());
  } catch (const DbError& e) {
    const report::ReportError error = report::as_report_error(e);
    return fail(report_exit_code(error), error.what());
  }
  report::StringSink text;
  report::write_findings(analysis, format, text);
  std::fwrite(text.text().data(), 1, text.text().size(), stdout);
  std::fflush(stdout);
  if (o.analyze_fail_above.empty()) return 0;
  const double limit = parse_threshold(o.analyze_fail_above).value_or(0);
  return report::largest_share(analysis) > limit ? kExitFindingAbove : 0;
}

int analyze(const Options& o) {
  std::string path;
  if (const int code = resolve_db_path(o.db, path)) return code;
  return analyze_file(path, o);
}

}  // namespace prof::cli
