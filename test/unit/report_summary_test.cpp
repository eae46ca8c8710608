#include <catch2/catch.hpp>

#include "report/summary.hpp"

using namespace prof::report;

TEST_CASE("terminal names are escaped, made printable and shortened", "[report][summary]") {
  CHECK(terminal_name("hipMalloc", 60) == "hipMalloc");
  CHECK(terminal_name("a\nb\x1b[31m", 60) == "a\\x0ab\\x1b[31m");
  CHECK(terminal_name("k\xFF", 60) == "k\\xff");
  CHECK(terminal_name("bad\xFF\xFE", 60) != terminal_name("bad\xFE\xFF", 60));
  CHECK(terminal_name("abcdefghij", 8) == "abcde...");
  // Cuts on code point boundaries: five two-byte letters kept whole.
  CHECK(terminal_name("\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB", 8) ==
        "\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB\xCE\xBB...");
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
  CHECK(text.find("Kernels (3 launches, 1 names, total 2.000 ms, 1 without device times)") != std::string::npos);
  CHECK(text.find(std::string(57, 'k') + "...") != std::string::npos);
  CHECK(text.find(std::string(58, 'k')) == std::string::npos);
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
