// The kernel filters (report/kernel_filter.hpp) on the basic fixture: which kernels each output
// keeps, under which name, and a bad regex refused before anything is written. basic.sql has
// scale<float> launched twice (correlation ids 3, timed, and 6, untimed), blur_shared once (4),
// and a kernel whose symbol was never resolved (unknown kernel at 0x401300), all enqueued by
// recorded calls.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "report/kernel_filter.hpp"
#include "report/report.hpp"
#include "report_test_support.hpp"

using namespace prof::report;
using prof::report::test::read_text;
using prof::report::test::TempDir;

namespace {

// The basic fixture's reports, named r.*, without a summary.
struct Fixture : prof::report::test::BasicReport {
  Fixture() : BasicReport("r") { options.summary_to_stdout = false; }
  std::string output(const std::string& suffix) const { return read_text(out.file("r" + suffix)); }
};

std::vector<std::string> data_lines(const std::string& csv) {
  std::vector<std::string> lines;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// Field `index` of a kernel_trace.csv row; the fields before Kernel_Name hold no comma.
std::string field(const std::string& line, int index) {
  size_t begin = 0;
  for (int i = 0; i < index; ++i) begin = line.find(',', begin) + 1;
  return line.substr(begin, line.find(',', begin) - begin);
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

constexpr int kCorrelationField = 6;  // Correlation_Id in kernel_trace.csv
const std::string kScale = "void scale<float>(float*, float const*, float, int)";

}  // namespace

TEST_CASE("an include regex keeps only matching kernels in every output, and every call stays",
          "[report][filter]") {
  Fixture all;
  write_reports(all.db_path, all.options, nullptr);
  Fixture f;
  f.options.kernels.include_regex = "scale";
  write_reports(f.db_path, f.options, nullptr);

  const std::vector<std::string> stats = data_lines(f.output(".kernel.csv"));
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].rfind("\"" + kScale + "\",2,", 0) == 0);
  const std::vector<std::string> trace = data_lines(f.output(".kernel_trace.csv"));
  REQUIRE(trace.size() == 2);
  CHECK(field(trace[0], kCorrelationField) == "3");
  CHECK(field(trace[1], kCorrelationField) == "6");
  CHECK(data_lines(all.output(".kernel_trace.csv")).size() == 4);
  CHECK(f.output(".api_trace.csv") == all.output(".api_trace.csv"));
  CHECK(f.output(".hiptrace.csv") == all.output(".hiptrace.csv"));

  // The timeline: one timed kernel slice of three, and no launch arrow to the two left out.
  const std::string json = f.output("_copy.json"), all_json = all.output("_copy.json");
  CHECK(count_of(all_json, "\"cat\":\"kernel\"") == 3);
  CHECK(count_of(json, "\"cat\":\"kernel\"") == 1);
  CHECK(count_of(json, "\"cat\":\"flow\"") == count_of(all_json, "\"cat\":\"flow\"") - 4);
  for (const char* suffix : {"_copy.json", ".pftrace", ".report.html", ".summary.json"}) {
    INFO(suffix);
    CHECK(all.output(suffix).find("blur_shared") != std::string::npos);
    CHECK(f.output(suffix).find("blur_shared") == std::string::npos);
    CHECK(f.output(suffix).find("unknown kernel at 0x401300") == std::string::npos);
  }
  CHECK(f.output(".summary.json").find("\"name\":\"" + kScale + "\",\"calls\":2,") !=
        std::string::npos);
}

TEST_CASE("the exclude regex wins over the include", "[report][filter]") {
  Fixture f;
  f.options.kernels.include_regex = "scale|blur";
  f.options.kernels.exclude_regex = "^blur";
  write_reports(f.db_path, f.options, nullptr);
  const std::vector<std::string> stats = data_lines(f.output(".kernel.csv"));
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].find(kScale) != std::string::npos);
}

TEST_CASE("a regex is matched to the unresolved kernels' names too", "[report][filter]") {
  Fixture f;
  f.options.kernels.exclude_regex = "scale|blur";
  write_reports(f.db_path, f.options, nullptr);
  const std::vector<std::string> trace = data_lines(f.output(".kernel_trace.csv"));
  REQUIRE(trace.size() == 1);
  CHECK(field(trace[0], kCorrelationField) == "1099511627779");
}

TEST_CASE("an iteration range keeps the A-th to B-th launch of each name", "[report][filter]") {
  Fixture f;
  f.options.kernels.iteration_range = std::pair<int64_t, int64_t>{2, 2};
  write_reports(f.db_path, f.options, nullptr);
  const std::vector<std::string> trace = data_lines(f.output(".kernel_trace.csv"));
  REQUIRE(trace.size() == 1);  // only scale was launched twice
  CHECK(field(trace[0], kCorrelationField) == "6");
  // Its second launch has no device times: counted in the statistics, no slice in the timeline.
  CHECK(data_lines(f.output(".kernel.csv")).size() == 1);
  CHECK(count_of(f.output("_copy.json"), "\"cat\":\"kernel\"") == 0);

  Fixture first;
  first.options.kernels.iteration_range = std::pair<int64_t, int64_t>{1, 1};
  write_reports(first.db_path, first.options, nullptr);
  std::vector<std::string> ids;
  for (const std::string& line : data_lines(first.output(".kernel_trace.csv")))
    ids.push_back(field(line, kCorrelationField));
  CHECK(ids == std::vector<std::string>{"3", "4", "1099511627779"});
}

TEST_CASE("truncated names: no return type, template arguments or parameters", "[report][filter]") {
  CHECK(truncate_kernel_name(kScale) == "scale");
  CHECK(truncate_kernel_name("blur_shared(float*, float const*, int)") == "blur_shared");
  CHECK(truncate_kernel_name("my_kernel") == "my_kernel");
  CHECK(truncate_kernel_name("void ns::Tile<int, 4>::run<float>(float*)") ==
        "ns::Tile<int, 4>::run");
  CHECK(truncate_kernel_name("void (anonymous namespace)::k<void (*)(int)>(int (*)(float))") ==
        "(anonymous namespace)::k");
  CHECK(truncate_kernel_name("std::pair<int, int> pick(int)") == "pick");

  Fixture f;
  f.options.kernels.truncate = true;
  write_reports(f.db_path, f.options, nullptr);
  const std::string stats = f.output(".kernel.csv");
  CHECK(stats.find("\nscale,2,") != std::string::npos);
  CHECK(stats.find("\nblur_shared,1,") != std::string::npos);
  CHECK(stats.find("float*") == std::string::npos);
  CHECK(f.output(".kernel_trace.csv").find(",scale,") != std::string::npos);
  CHECK(f.output("_copy.json").find("\"name\":\"scale\"") != std::string::npos);
}

TEST_CASE("mangled names where the db keeps the symbol, matched by their demangled name",
          "[report][filter]") {
  Fixture f;
  {
    prof::Database db(f.db_path, prof::Database::Mode::kReadWrite);
    db.exec("UPDATE strings SET value = '_Z11blur_sharedPfPKfi' WHERE string_id = 2");
  }
  write_reports(f.db_path, f.options, nullptr);
  CHECK(f.output(".kernel.csv").find("\"blur_shared(float*, float const*, int)\",1,") !=
        std::string::npos);

  f.options.kernels.mangled = true;
  f.options.kernels.include_regex = R"(blur_shared\(float\*)";
  write_reports(f.db_path, f.options, nullptr);
  const std::vector<std::string> stats = data_lines(f.output(".kernel.csv"));
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].rfind("_Z11blur_sharedPfPKfi,1,", 0) == 0);
}

TEST_CASE("a bad regex is one error naming the option, and nothing is written",
          "[report][filter]") {
  Fixture f;
  f.options.kernels.include_regex = "sc(ale";
  CHECK_THROWS_WITH(write_reports(f.db_path, f.options, nullptr),
                    Catch::StartsWith("--kernel-include-regex 'sc(ale': not a regex"));
  f.options.kernels.include_regex.clear();
  f.options.kernels.exclude_regex = "[";
  CHECK_THROWS_WITH(write_reports(f.db_path, f.options, nullptr),
                    Catch::StartsWith("--kernel-exclude-regex '['"));
  CHECK(f.out.list().empty());
}

TEST_CASE("the summary over several processes applies the filters", "[report][filter]") {
  Fixture f;
  KernelFilterOptions filters;
  filters.include_regex = "blur";
  const std::string text = prof::report::test::captured_output([&](std::FILE* file) {
    write_combined_summary({f.db_path, f.db_path}, file, filters);
  });
  CHECK(text.find("Kernels (2 launches, 1 names") != std::string::npos);
  CHECK(text.find("scale") == std::string::npos);
}

TEST_CASE("a filtered timeline is split as the db without those kernels would be",
          "[report][filter]") {
  // The split plan (report/timeline_parts.hpp) counts the events that are written: the same parts,
  // spans and event counts as a db whose left-out kernels were never recorded.
  Fixture f;
  f.options.json_max_events = 3;
  f.options.pftrace = false;
  f.options.kernels.exclude_regex = "blur|unknown";
  const ReportResult filtered = write_reports(f.db_path, f.options, nullptr);

  Fixture without;
  without.options.json_max_events = 3;
  without.options.pftrace = false;
  {
    prof::Database db(without.db_path, prof::Database::Mode::kReadWrite);
    db.exec("DELETE FROM kernels WHERE name_id IS NULL OR name_id = 2");
  }
  const ReportResult expected = write_reports(without.db_path, without.options, nullptr);
  REQUIRE(expected.timeline_parts.size() > 1);
  REQUIRE(filtered.timeline_parts.size() == expected.timeline_parts.size());
  for (size_t i = 0; i < expected.timeline_parts.size(); ++i) {
    INFO("part " << i);
    CHECK(filtered.timeline_parts[i].begin_ns == expected.timeline_parts[i].begin_ns);
    CHECK(filtered.timeline_parts[i].end_ns == expected.timeline_parts[i].end_ns);
    CHECK(filtered.timeline_parts[i].events == expected.timeline_parts[i].events);
  }
}
