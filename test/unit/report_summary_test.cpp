#include <catch2/catch.hpp>

#include "report/summary.hpp"

#include <sstream>

#include "report/display_width.hpp"

using namespace prof::report;

TEST_CASE("terminal names are escaped, made printable and shortened", "[report][summary]") {
  CHECK(terminal_name("hipMalloc", 60) == "hipMalloc");
  CHECK(terminal_name("a\nb\x1b[31m", 60) == "a\\x0ab\\x1b[31m");
  CHECK(terminal_name("k\xFF", 60) == "k\\xff");
  CHECK(terminal_name("bad\xFF\xFE", 60) != terminal_name("bad\xFE\xFF", 60));
  CHECK(terminal_name("abcdefghij", 8) == "abcde...");
  // Cuts on code point boundaries: five two-byte letters kept whole.
  CHECK(terminal_name("\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB",
                      8) == "\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB...");
}

TEST_CASE("the summary lists both tables, drops and files", "[report][summary]") {
  NameStats memcpy_row;
  memcpy_row.name = "hipMemcpy";
  memcpy_row.calls = memcpy_row.timed_calls = 2;
  memcpy_row.total_ns = 3000;
  StatsTable api = make_stats_table({memcpy_row});
  NameStats kernel;
  kernel.name = std::string(100, 'k');
  kernel.calls = 3;
  kernel.timed_calls = 2;
  kernel.total_ns = 2'000'000;
  StatsTable kernels = make_stats_table({kernel});
  StringSink sink;
  write_summary({{{"HIP API", api}}, kernels, {{"ring_full", 5}}, {"/out/r.hiptrace.csv"}}, sink);
  const std::string& text = sink.text();
  CHECK(text.find("HIP API (2 calls, 1 names, total 3.000 us)") != std::string::npos);
  CHECK(text.find("  hipMemcpy") != std::string::npos);
  CHECK(text.find("1.500 us") != std::string::npos);
  CHECK(text.find("100.00%") != std::string::npos);
  CHECK(text.find("Kernels (3 launches, 1 names, total 2.000 ms, 1 without device times)") !=
        std::string::npos);
  // Cut to what the numbers leave of a 100-column line.
  CHECK(text.find(std::string(kSummaryTableNameWidth - 3, 'k') + "...") != std::string::npos);
  CHECK(text.find(std::string(kSummaryTableNameWidth - 2, 'k')) == std::string::npos);
  CHECK(text.find("Warning: 5 events were dropped") != std::string::npos);
  CHECK(text.find("  ring_full: 5") != std::string::npos);
  CHECK(text.find("Files written:\n  /out/r.hiptrace.csv\n") != std::string::npos);
}

TEST_CASE("the summary says when there is nothing", "[report][summary]") {
  StatsTable empty;
  StringSink sink;
  write_summary({{{"HIP API", empty}}, empty, {}, {}}, sink);
  CHECK(sink.text().find("HIP API (0 calls, 0 names, total 0 ns)\n  (none)") != std::string::npos);
  CHECK(sink.text().find("dropped") == std::string::npos);
}

TEST_CASE("the summary tables show median and p95, and a copy table, in 100 columns",
          "[report][summary]") {
  NameStats launch;
  launch.name = "hipLaunchKernel";
  launch.calls = launch.timed_calls = 100;
  launch.total_ns = 5050;  // 1..100 ns
  launch.median_ns = 50;
  launch.p95_ns = 95;
  StatsTable api = make_stats_table({launch});
  NameStats kernel;
  kernel.name = "void scale<float>(float*, float const*, float, int)";
  kernel.calls = kernel.timed_calls = 3;
  kernel.total_ns = 6'000'000;
  kernel.median_ns = 1'500'000;
  kernel.p95_ns = 3'000'000;
  StatsTable kernels = make_stats_table({kernel});
  CopyStats h2d{"H2D", 4, 4, 4096, 4096, 4000, 700, 1300, 990, 1300};
  CopyStats memset{"Memset", 2, 1, 128, 64, 64, 64, 64, 64, 64};
  SummaryInput input{{{"HIP API", api}}, kernels, {}, {}};
  input.copies = {memset, h2d};
  StringSink sink;
  write_summary(input, sink);
  const std::string& text = sink.text();
  INFO(text);
  CHECK(text.find(
            "  Name              Calls      Total    Average        Med        p95  Percent\n"
            "  hipLaunchKernel     100   5.050 us      51 ns      50 ns      95 ns  100.00%\n") !=
        std::string::npos);
  CHECK(text.find("  void scale<float>(float*, float co...       3   6.000 ms   2.000 ms   1.500 "
                  "ms   3.000 ms  100.00%\n") != std::string::npos);
  // By device time, as the copy statistics CSV; the Memset without device times is counted.
  CHECK(text.find(
            "Copies and memsets (6 operations, 2 directions, total 4.064 us, 1 without device "
            "times)\n"
            "  Direction   Calls       Bytes      Total    Average        Med        p95     GB/s\n"
            "  H2D             4    4.00 KiB   4.000 us   1.000 us     990 ns   1.300 us    1.024\n"
            "  Memset          2       128 B      64 ns      64 ns      64 ns      64 ns    "
            "1.000\n") != std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    CHECK(display_columns(line) <= kSummaryLineWidth);
}

TEST_CASE("the summary's copy table says when there are no copies", "[report][summary]") {
  StatsTable empty;
  StringSink sink;
  write_summary({{{"HIP API", empty}}, empty, {}, {}}, sink);
  CHECK(
      sink.text().find("Copies and memsets (0 operations, 0 directions, total 0 ns)\n  (none)\n") !=
      std::string::npos);
}

TEST_CASE(
    "the summary's stream table shows the busiest streams, their share of the run and of their "
    "span",
    "[report][summary]") {
  StatsTable empty;
  SummaryInput input{{{"HIP API", empty}}, empty, {}, {}};
  for (int64_t i = 0; i < 12; ++i) {
    StreamBusy busy;
    busy.device = i % 2;
    busy.stream_index = i;
    busy.operations = 2 * i + 2;
    busy.kernels = i + 1;
    busy.busy_ns = (i + 1) * 1000;  // stream 11 is the busiest
    busy.first_ns = 0;
    busy.last_ns = (i + 1) * 4000;
    input.streams.push_back({"pid " + std::to_string(100 + i % 2), busy, 100'000});
  }
  StringSink sink;
  write_summary(input, sink);
  const std::string& text = sink.text();
  INFO(text);
  CHECK(
      text.find(
          "Streams (12 with device work, busy 78.000 us in all)\n"
          "  Process       Device  Stream     Ops Kernels       Busy % of run       Span   % busy\n"
          "  pid 101            1      11      24      12  12.000 us   12.00%  48.000 us   25.00%\n"
          "  pid 100            0      10      22      11  11.000 us   11.00%  44.000 us   "
          "25.00%\n") != std::string::npos);
  CHECK(text.find("  ... and 2 more (the HTML report lists them all)\n") != std::string::npos);
  CHECK(text.find("      0       0       2       1") ==
        std::string::npos);  // stream 0, the 12th, is cut
}
