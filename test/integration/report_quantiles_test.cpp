// Median and p95 in the statistics CSVs, the terminal summary's tables (its copy table too) and
// the range statistics, on dbs whose durations are known: every API call, kernel, copy and range
// of a run lasts 1, 2, ..., 100 ns, so nearest rank gives a median of 50 ns and a p95 of 95 ns.
// Split over two processes (1..50 and 51..100), each process alone would give 25/48 and 75/98:
// a merged run's numbers must come from all its durations, never from its parts'.
#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "report/merge.hpp"
#include "report/report.hpp"
#include "report_test_support.hpp"

using namespace prof::report;
using prof::report::test::read_text;
using prof::report::test::TempDir;

namespace {

// A process (pid) whose calls, kernels, copies and ranges last first..last ns, one of each per ns.
void build_durations_db(const std::string& path, int pid, int first, int last) {
  prof::Database db(path, prof::Database::Mode::kCreate);
  db.exec(prof::schema::kCreateSql);
  db.exec(prof::schema::kCopyDirectionsSql);
  const std::string p = std::to_string(pid);
  db.exec(
      "INSERT INTO meta (key, value) VALUES ('schema_version', '1'), ('prof_version', '0.1.0'),"
      " ('runtime', 'hip'), ('pid', '" +
      p +
      "'), ('ppid', '1'), ('host_name', 'testhost'),"
      " ('command_line', './durations'), ('start_ns', '1000000000'), ('end_ns', '1100000000'),"
      " ('wall_start_unix_ns', '1700000000000000000'), ('clock', 'CLOCK_MONOTONIC');"
      "INSERT INTO api_names (api_id, name) VALUES (3, 'hipLaunchKernel'), (4, 'hipMemcpyAsync');"
      "INSERT INTO threads (thread_id, thread_index, created_ns) VALUES (" +
      p +
      ", 0, 999990000);"
      "INSERT INTO streams (stream_index, stream_handle, device) VALUES (1, 4096, 0);"
      "INSERT INTO strings (string_id, value) VALUES (1, 'void scale<float>(float*, int)');");
  // Duration i starts at 1e9 + i us: nothing overlaps, correlation ids are i (launch) and 1000 + i
  // (copy).
  const std::string durations = "WITH RECURSIVE n(i) AS (SELECT " + std::to_string(first) +
                                " UNION ALL SELECT i + 1 FROM n WHERE i < " + std::to_string(last) +
                                ") ";
  db.exec(durations +
          "INSERT INTO api_calls (correlation_id, sequence, api_id, thread_id, begin_ns, end_ns, "
          "result,"
          " stream_index, device, bytes, aux) SELECT i, 2 * i, 3, " +
          p + ", 1000000000 + i * 1000, 1000000000 + i * 1000 + i, 0, 1, 0, 0, 0 FROM n");
  db.exec(durations +
          "INSERT INTO api_calls (correlation_id, sequence, api_id, thread_id, begin_ns, end_ns, "
          "result,"
          " stream_index, device, bytes, aux) SELECT 1000 + i, 2 * i + 1, 4, " +
          p + ", 1000000500 + i * 1000, 1000000500 + i * 1000 + i, 0, 1, 0, 64, 1 FROM n");
  db.exec(durations +
          "INSERT INTO kernels (correlation_id, name_id, function_address, device, stream_index, "
          "grid_x, grid_y,"
          " grid_z, block_x, block_y, block_z, shared_mem_bytes, device_begin_ns, device_end_ns)"
          " SELECT i, 1, 4198400, 0, 1, 1, 1, 1, 64, 1, 1, 0, 1050000000 + i * 1000, 1050000000 + "
          "i * 1000 + i"
          " FROM n");
  db.exec(
      durations +
      "INSERT INTO copies (correlation_id, device, stream_index, direction, bytes, device_begin_ns,"
      " device_end_ns) SELECT 1000 + i, 0, 1, 1, 64, 1050000500 + i * 1000, 1050000500 + i * 1000 "
      "+ i FROM n");
  db.exec(durations +
          "INSERT INTO markers (kind, message, source, thread_id, begin_ns, end_ns, level)"
          " SELECT 'push_pop', 'step', 'roctx', " +
          p +
          ", 1000000000 + i * 1000, 1000000000 + i * 1000 + i, 0"
          " FROM n");
}

// The CSV's row that starts with `name`, or "" (names here hold no commas).
std::string csv_row(const std::string& path, const std::string& name) {
  std::istringstream lines(read_text(path));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(name + ",", 0) == 0 || line.rfind("\"" + name + "\",", 0) == 0) return line;
  return "";
}

std::string first_line(const std::string& path) {
  std::istringstream lines(read_text(path));
  std::string line;
  std::getline(lines, line);
  return line;
}

using prof::report::test::captured_output;

// Every statistics CSV of `base` in `dir` ends each of its rows of 1..100 ns in ",50,95".
void check_csvs(const TempDir& dir, const std::string& base) {
  const std::string stats_header =
      "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDevNs,MedianNs,P95Ns";
  CHECK(first_line(dir.file(base + ".hiptrace.csv")) == stats_header);
  CHECK(first_line(dir.file(base + ".kernel.csv")) == stats_header);
  CHECK(first_line(dir.file(base + ".range_stats.csv")) == stats_header);
  CHECK(first_line(dir.file(base + ".copy_stats.csv")) ==
        "Direction,Calls,TotalBytes,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,BandwidthGBps,"
        "MedianNs,P95Ns");
  // Calls, total 5050, average 51 (50.5 rounded half up), percentage, min 1, max 100, std dev 29.
  CHECK(csv_row(dir.file(base + ".hiptrace.csv"), "hipLaunchKernel") ==
        "hipLaunchKernel,100,5050,51,50.00,1,100,29,50,95");
  CHECK(csv_row(dir.file(base + ".hiptrace.csv"), "hipMemcpyAsync") ==
        "hipMemcpyAsync,100,5050,51,50.00,1,100,29,50,95");
  CHECK(csv_row(dir.file(base + ".kernel.csv"), "void scale<float>(float*, int)") ==
        "\"void scale<float>(float*, int)\",100,5050,51,100.00,1,100,29,50,95");
  CHECK(csv_row(dir.file(base + ".range_stats.csv"), "step") ==
        "step,100,5050,51,100.00,1,100,29,50,95");
  CHECK(csv_row(dir.file(base + ".copy_stats.csv"), "H2D") ==
        "H2D,100,6400,5050,51,100.00,1,100,1.267,50,95");
  CHECK(csv_row(dir.file(base + ".kernel_by_range.csv"), "step") ==
        "step,\"void scale<float>(float*, int)\",100,5050,51,100.00,1,100,29,50,95");
}

// The summary's API, kernel and copy rows of 1..100 ns.
void check_summary(const std::string& text) {
  INFO(text);
  CHECK(text.find(
            "  hipLaunchKernel     100   5.050 us      51 ns      50 ns      95 ns   50.00%\n") !=
        std::string::npos);
  CHECK(text.find("  void scale<float>(float*, int)     100   5.050 us      51 ns      50 ns      "
                  "95 ns  100.00%\n") != std::string::npos);
  CHECK(text.find(
            "Copies and memsets (100 operations, 1 directions, total 5.050 us)\n"
            "  Direction   Calls       Bytes      Total    Average        Med        p95     GB/s\n"
            "  H2D           100    6.25 KiB   5.050 us      51 ns      50 ns      95 ns    "
            "1.267\n") != std::string::npos);
}

}  // namespace

TEST_CASE("the statistics CSVs and the summary give nearest-rank median and p95",
          "[report][quantiles]") {
  TempDir dir, out;
  const std::string db = dir.file("durations.db");
  build_durations_db(db, 4242, 1, 100);
  ReportOptions options;
  options.output_dir = out.path;
  options.base_name = "result";
  options.kernel_stats_by_range = true;
  const std::string summary = captured_output([&](std::FILE* f) { write_reports(db, options, f); });
  check_csvs(out, "result");
  check_summary(summary);
  // The HTML tables too: Median and p95 after Average.
  const std::string html = read_text(out.file("result.report.html"));
  CHECK(html.find(">Average</th><th class=\"n\" title=\"nearest rank, within 0.8%\">Median</th>") !=
        std::string::npos);
  CHECK(
      html.find("<td class=\"n\">51 ns</td><td class=\"n\">50 ns</td><td class=\"n\">95 ns</td>") !=
      std::string::npos);
}

TEST_CASE("a merged run's median and p95 are of all its processes' durations",
          "[report][quantiles]") {
  TempDir dir, out;
  build_durations_db(dir.file("hip-prof-4242.db"), 4242, 1, 50);
  build_durations_db(dir.file("hip-prof-4243.db"), 4243, 51, 100);

  SECTION("prof --db-merge") {
    MergeOptions merge;
    merge.input_dir = dir.path;
    ReportOptions options;
    options.output_dir = out.path;
    options.base_name = "merged";
    options.kernel_stats_by_range = true;
    const std::string summary =
        captured_output([&](std::FILE* f) { merge_reports(merge, options, f); });
    check_csvs(out, "merged");
    check_summary(summary);
  }
  SECTION("the combined summary of several dbs") {
    check_summary(captured_output([&](std::FILE* f) {
      write_combined_summary({dir.file("hip-prof-4242.db"), dir.file("hip-prof-4243.db")}, f);
    }));
  }
}
