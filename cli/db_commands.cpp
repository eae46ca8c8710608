#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <regex>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/merge.hpp"
#include "cli/output_place.hpp"
#include "report/compare.hpp"
#include "report/merged_db.hpp"
#include "report/output_file.hpp"
#include "report/report.hpp"
#include "report/report_db.hpp"
#include "report/report_error.hpp"
#include "report/report_files.hpp"

namespace prof::cli {

int resolve_db_path(const std::string& given, std::string& path) {
  struct stat st;
  if (stat(given.c_str(), &st) != 0) return fail(kExitNoInput, "--db " + given + ": no such file");
  // SQLite's opens do not follow symbolic links (db/sqlite_db.cpp, on purpose: the collector
  // writes into shared directories), so a db named through a link, or in a linked directory, failed
  // with "unable to open database file". The user's own db is opened at its real path; a link to
  // another user's file is not followed.
  path = given;
  char resolved[PATH_MAX];
  if (realpath(given.c_str(), resolved) == nullptr)
    return fail(kExitNoInput, "--db " + given + ": " + std::strerror(errno));
  if (std::filesystem::absolute(given).lexically_normal() != resolved) {
    if (st.st_uid != geteuid())
      return fail(kExitBadInput,
                  "--db " + given + ": a symbolic link to " + resolved +
                      ", which is another user's; not following it (name the file itself)");
    path = resolved;
  }
  return 0;
}

int regenerate(const Options& given) {
  Options o = given;
  if (const int code = resolve_db_path(given.db, o.db)) return code;
  std::string pid_part;
  std::smatch m;
  std::string file = given.db.substr(given.db.rfind('/') + 1);  // the name the user gave
  // <runtime>-prof-<pid>.db (hip-prof-<pid>.db, musa-prof-<pid>.db) or prof-<pid>.db (several
  // runtimes).
  static const std::regex db_name(R"(^(?:[a-z0-9]+-)?prof-([0-9]+)\.db$)");
  const bool named_by_pid = std::regex_match(file, m, db_name);
  const std::string default_base =
      named_by_pid ? "result_" + m[1].str() : file.substr(0, file.rfind('.'));
  const int name_pid = named_by_pid ? std::atoi(m[1].str().c_str()) : 0;  // the meta's pid wins
  // A database whose prof stopped before completing it (killed, interrupted twice) is read as it
  // is, and said so once; its calls have no sequence numbers for --index-range to select by.
  try {
    std::unique_ptr<Database> db = report::open_report_db(o.db);
    if (!report::meta_value(*db, "end_ns")) {
      const std::string what = o.db + " was not finished (its prof stopped while writing it)";
      const std::string fix =
          "`prof --recover` completes it while its run directory is still there";
      if (!o.index_range.empty())
        return fail(kExitBadInput, "--index-range " + o.index_range + ": " + what +
                                       ", so its calls have no sequence "
                                       "numbers; " +
                                       fix);
      std::fprintf(
          stderr,
          "prof: %s: no sequence numbers, drop counts or end time; reported as it is (%s)\n",
          what.c_str(), fix.c_str());
    } else if (const auto range = parse_range(o.index_range); range && !report::is_merged_db(*db)) {
      // A range that holds none of the db's calls wrote empty files without a word (issue 41).
      if (const auto calls = report::call_numbers(*db);
          calls && (range->second < calls->first || range->first > calls->second))
        return fail(kExitEmptyRange, "--index-range " + o.index_range + ": " + o.db +
                                         " has calls " + std::to_string(calls->first) + " to " +
                                         std::to_string(calls->second) +
                                         " (numbered from 1); none is in that range");
    }
  } catch (const report::ReportError& e) {
    return fail(report_exit_code(e), e.what());
  }
  std::string message;
  Options out = o;
  if (!prepare_output_dir(out.output_dir, message)) return fail(kExitCannotWrite, message);
  // -d and -o patterns name the db's process (its pid, rank, host), as the run that wrote it did.
  OutputPlace place;
  const PatternValues values = process_pattern_values(o.db, name_pid);
  if (!place_outputs(out, values, place, message)) return fail(kExitCannotWrite, message);
  out.output_dir = place.dir;
  const std::string base = place.name.empty() ? default_base : place.name;
  say_stale_temps_removed(out.output_dir, remove_stale_temps(out.output_dir));
  try {
    const report::ReportResult written =
        report::write_reports(o.db, report_options(out, base), summary_stream(o));
    print_warnings(written);
    for (const std::string& failed : written.failed)
      std::fprintf(stderr, "prof: %s\n", failed.c_str());
    if (!written.failed.empty()) return kExitCannotWrite;
  } catch (const report::ReportError& e) {
    return fail(report_exit_code(e), e.what());
  }
  return 0;
}

int merge(const Options& o) {
  std::string message;
  struct stat st;
  if (stat(o.db_merge.c_str(), &st) != 0)
    return fail(kExitNoInput, "--db-merge " + o.db_merge + ": no such directory");
  if (!S_ISDIR(st.st_mode))
    return fail(kExitBadInput, "--db-merge " + o.db_merge + ": not a directory");
  Options out = o;
  if (!prepare_output_dir(out.output_dir, message)) return fail(kExitCannotWrite, message);
  say_stale_temps_removed(out.output_dir, remove_stale_temps(out.output_dir));
  const std::string base = o.output_name.empty() ? "result_merged" : o.output_name;
  // With --analyze the findings take stdout; the summary goes only to stderr or a file.
  std::FILE* summary = o.analyze && o.summary_output == "stdout" ? nullptr : summary_stream(o);
  const int code = merge_databases({o.db_merge, o.recursive, PROF_VERSION, !o.strict},
                                   report_options(out, base), summary);
  if (code != 0 || !o.analyze) return code;
  return analyze_file(report::join_path(out.output_dir, base + ".db"), o);
}

int compare(const Options& o) {
  constexpr int kCompareError = 2, kCompareRegressed = 1;
  std::optional<double> threshold = parse_threshold(o.threshold);
  if (!threshold)
    return fail(kCompareError, "--threshold " + o.threshold + ": expected a percentage such as 5%");
  std::optional<int64_t> min_time = parse_duration(o.min_time);
  if (!min_time)
    return fail(kCompareError,
                "--min-time " + o.min_time + ": expected a duration such as 10us, 1ms, 0");
  static const std::pair<const char*, report::CompareFormat> formats[] = {
      {"text", report::CompareFormat::kText},
      {"csv", report::CompareFormat::kCsv},
      {"json", report::CompareFormat::kJson},
      {"markdown", report::CompareFormat::kMarkdown}};
  const auto* format = std::find_if(std::begin(formats), std::end(formats),
                                    [&](const auto& f) { return o.format == f.first; });
  if (format == std::end(formats))
    return fail(kCompareError, "--format " + o.format + ": expected text, csv, json or markdown");
  report::CompareOptions options;
  options.threshold = *threshold;
  options.min_time_ns = *min_time;
  options.check_calls = !o.ignore_call_count;
  report::Comparison result;
  try {
    report::Side base = report::load_side(o.compare[0]);
    report::Side now = report::load_side(o.compare[1]);
    result = report::compare_sides(base, now, options);
  } catch (const report::ReportError& e) {
    return fail(kCompareError, e.what());
  }
  report::StringSink text;
  report::write_comparison(result, format->second, text);
  if (o.output_name.empty()) {
    std::fwrite(text.text().data(), 1, text.text().size(), stdout);
  } else {
    static const char* extensions[] = {".txt", ".csv", ".json", ".md"};
    std::string path =
        report::join_path(o.output_dir, o.output_name + extensions[format - std::begin(formats)]);
    try {
      report::OutputFile file(path, "");
      file.write(text.text());
      file.finish();
      file.commit();
    } catch (const report::ReportError& e) {
      return fail(kCompareError, e.what());
    }
    std::printf("prof: %s: %s\n", path.c_str(),
                result.regressions ? (std::to_string(result.regressions) + " regression(s)").c_str()
                                   : "clean");
  }
  std::fflush(stdout);
  return result.regressions ? kCompareRegressed : 0;
}

}  // namespace prof::cli
