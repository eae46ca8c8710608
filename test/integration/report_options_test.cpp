// write_reports' options and its all-or-nothing output, on the fixture dbs.
#include <algorithm>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>

#include "report/report.hpp"
#include "report_test_support.hpp"

using namespace prof::report;
using prof::report::test::TempDir;

namespace {

// The basic fixture's reports as hipprof names them.
struct Fixture : prof::report::test::BasicReport {
  Fixture() : BasicReport("result_4242") {}
};

std::string captured_summary(const std::string& db_path, const ReportOptions& options) {
  return prof::report::test::captured_output(
      [&](std::FILE* file) { write_reports(db_path, options, file); });
}

}  // namespace

TEST_CASE("write_reports writes hipprof's file names and lists them", "[report][options]") {
  Fixture f;
  ReportResult result = write_reports(f.db_path, f.options, nullptr);
  std::vector<std::string> expected = {
      f.out.file("result_4242.hiptrace.csv"),     f.out.file("result_4242.kernel.csv"),
      f.out.file("result_4242.summary.json"),     f.out.file("result_4242.api_trace.csv"),
      f.out.file("result_4242.kernel_trace.csv"), f.out.file("result_4242.copy_trace.csv"),
      f.out.file("result_4242.copy_stats.csv"),   f.out.file("result_4242.memory_stats.csv"),
      f.out.file("result_4242.pftrace"),          f.out.file("result_4242_copy.json"),
      f.out.file("result_4242.report.html")};
  CHECK(result.files_written == expected);
  CHECK(f.out.list() ==
        std::vector<std::string>{
            "result_4242.api_trace.csv", "result_4242.copy_stats.csv", "result_4242.copy_trace.csv",
            "result_4242.hiptrace.csv", "result_4242.kernel.csv", "result_4242.kernel_trace.csv",
            "result_4242.memory_stats.csv", "result_4242.pftrace", "result_4242.report.html",
            "result_4242.summary.json", "result_4242_copy.json"});
}

TEST_CASE("pftrace off leaves the other files", "[report][options]") {
  Fixture f;
  f.options.pftrace = false;
  ReportResult result = write_reports(f.db_path, f.options, nullptr);
  CHECK(result.files_written.size() == 10);
  CHECK(f.out.list().size() == 10);
  CHECK(std::find(result.files_written.begin(), result.files_written.end(),
                  f.out.file("result_4242.pftrace")) == result.files_written.end());
}

TEST_CASE("group_stream adds the stream view", "[report][options]") {
  Fixture f;
  f.options.group_stream = true;
  ReportResult result = write_reports(f.db_path, f.options, nullptr);
  REQUIRE(result.files_written.size() == 12);
  CHECK(result.files_written[10] == f.out.file("result_4242_stream.json"));
}

TEST_CASE("the summary goes to the given stream only when asked", "[report][options]") {
  Fixture f;
  std::string summary = captured_summary(f.db_path, f.options);
  CHECK(summary.find("HIP API (17 calls") != std::string::npos);
  CHECK(summary.find("Warning: 3 events were dropped") != std::string::npos);
  CHECK(summary.find(f.out.file("result_4242_copy.json")) != std::string::npos);
  f.options.summary_to_stdout = false;
  CHECK(captured_summary(f.db_path, f.options).empty());
}

TEST_CASE("a symlink where a report goes is refused, and the other reports are written",
          "[report][options]") {
  // Issue 16: one refused output costs only itself (before, none of the reports was written).
  Fixture f;
  std::string victim = f.dir.file("victim");
  prof::report::test::write_text(victim, "keep me");
  REQUIRE(::symlink(victim.c_str(), f.out.file("result_4242_copy.json").c_str()) == 0);
  prof::report::ReportResult result = write_reports(f.db_path, f.options, nullptr);
  REQUIRE(result.failed.size() == 1);
  CHECK_THAT(result.failed[0],
             Catch::Contains("result_4242_copy.json") && Catch::Contains("symbolic link"));
  // The ten others, and the link untouched.
  std::vector<std::string> names = f.out.list();
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"result_4242.api_trace.csv", "result_4242.copy_stats.csv",
                                          "result_4242.copy_trace.csv", "result_4242.hiptrace.csv",
                                          "result_4242.kernel.csv", "result_4242.kernel_trace.csv",
                                          "result_4242.memory_stats.csv", "result_4242.pftrace",
                                          "result_4242.report.html", "result_4242.summary.json",
                                          "result_4242_copy.json"});
  CHECK(prof::report::test::read_text(victim) == "keep me");
}

TEST_CASE("bad options are one clear error", "[report][options]") {
  Fixture f;
  f.options.base_name = "a/b";
  CHECK_THROWS_AS(write_reports(f.db_path, f.options, nullptr), ReportError);
  f.options.base_name = "ok";
  f.options.index_range = std::pair<int64_t, int64_t>{5, 2};
  CHECK_THROWS_WITH(write_reports(f.db_path, f.options, nullptr), Catch::Contains("5-2"));
  f.options.index_range.reset();
  f.options.output_dir = f.dir.file("no-such-dir");
  CHECK_THROWS_WITH(write_reports(f.db_path, f.options, nullptr), Catch::Contains("no-such-dir"));
  CHECK(f.out.list().empty());
}

TEST_CASE("reports replace older reports of the same name", "[report][options]") {
  Fixture f;
  prof::report::test::write_text(f.out.file("result_4242.kernel.csv"),
                                 "Name,Calls,TotalDurationNs,stale\n");
  write_reports(f.db_path, f.options, nullptr);
  CHECK(prof::report::test::read_text(f.out.file("result_4242.kernel.csv")).find("stale") ==
        std::string::npos);
}

TEST_CASE("reports never replace a file that is not prof's", "[report][options]") {
  Fixture f;
  prof::report::test::write_text(f.out.file("result_4242_copy.json"), "my notes\n");
  prof::report::ReportResult result = write_reports(f.db_path, f.options, nullptr);
  REQUIRE(result.failed.size() == 1);
  CHECK_THAT(result.failed[0], Catch::Contains("result_4242_copy.json"));
  CHECK(prof::report::test::read_text(f.out.file("result_4242_copy.json")) == "my notes\n");
  CHECK(f.out.list().size() == 11);  // the ten others were written
}
