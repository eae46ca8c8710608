#include <catch2/catch.hpp>

#include "report/html_escape.hpp"
#include "report/html_report.hpp"

using namespace prof::report;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kWeirdName = "void k<a&b, \"q\">('x', \xCE\xBB)\x01\xFF";
const std::string kWeirdEscaped =
    "void k&lt;a&amp;b, &quot;q&quot;&gt;(&#39;x&#39;, \xCE\xBB)\\x01\\xff";

}  // namespace

TEST_CASE("HTML text is escaped, repaired and printable", "[report][html]") {
  CHECK(html_escaped("hipMalloc") == "hipMalloc");
  CHECK(html_escaped(kWeirdName) == kWeirdEscaped);
  CHECK(html_escaped("a\tb\nc\x7F") == "a\tb\nc\\x7f");
  CHECK(html_escaped("</script><!--") == "&lt;/script&gt;&lt;!--");
}

TEST_CASE("file names become relative links that stay file names", "[report][html]") {
  CHECK(url_file_name("result_42_copy.1.json") == "result_42_copy.1.json");
  CHECK(url_file_name("a b#1?.json") == "a%20b%231%3F.json");
  CHECK(url_file_name("c:x.json") == "c%3Ax.json");
  CHECK(url_file_name("\xCE\xBB.json") == "%CE%BB.json");
}

TEST_CASE("an empty run is a complete page that says what it lacks", "[report][html]") {
  HtmlReport html;
  StatsTable empty;
  std::vector<CopyStats> no_copies;
  std::vector<MemorySeries> no_memory;
  StringSink sink;
  html.write({{}, empty, no_copies, no_memory, {}, {}}, sink);
  const std::string& page = sink.text();
  CHECK(page.rfind(std::string(kHtmlSignature), 0) == 0);
  CHECK(page.find("</html>\n") == page.size() - 8);
  CHECK(page.find("No kernel launches.") != std::string::npos);
  CHECK(page.find("No API calls.") != std::string::npos);
  CHECK(page.find("No copies or memsets.") != std::string::npos);
  CHECK(page.find("No allocations recorded.") != std::string::npos);
  CHECK(page.find("No timeline file was written.") != std::string::npos);
  CHECK(page.find("<svg") == std::string::npos);
  // Self-contained: nothing to fetch.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
}

TEST_CASE("the page holds the tables, charts, busy streams, memory curve and timeline links",
          "[report][html]") {
  HtmlReport html;
  ProcessOverview overview;
  overview.process.pid = 4242;
  overview.process.host_name = "node<1>";
  overview.process.command_line = "./app --name=<x>";
  overview.runtimes = "hip";
  overview.start_ns = 1'000'000;
  overview.end_ns = 11'000'000;
  overview.wall_start_unix_ns = 0;
  StreamBusy stream;
  stream.device = 0;
  stream.stream_index = 3;
  stream.operations = 4;
  stream.kernels = 3;
  stream.busy_ns = 2'500'000;
  stream.first_ns = 2'000'000;
  stream.last_ns = 7'000'000;
  MemoryChange on_change = html.add_process(overview, {stream});
  MemorySeries series;
  series.kind = MemoryKind::kDevice;
  series.device = 0;
  series.peak_bytes = 3 << 20;
  for (int64_t i = 0; i < 5000; ++i)
    on_change(series, 1'000'000 + i * 1000, i == 2500 ? (3 << 20) : (i % 10) << 10);

  NameStats weird;
  weird.name = kWeirdName;
  weird.calls = weird.timed_calls = 2;
  weird.total_ns = 3000;
  NameStats plain;
  plain.name = "plain_kernel";
  plain.calls = plain.timed_calls = 1;
  plain.total_ns = 1000;
  StatsTable kernels = make_stats_table({weird, plain});
  NameStats malloc_row;
  malloc_row.name = "hipMalloc";
  malloc_row.calls = malloc_row.timed_calls = 1;
  malloc_row.total_ns = 500;
  StatsTable api = make_stats_table({malloc_row});
  std::vector<CopyStats> copies = {{"H2D", 2, 2, 8192, 8192, 4000, 1000, 3000}};
  std::vector<MemorySeries> memory = {series};
  StringSink sink;
  html.write({{{"HIP API", api}},
              kernels,
              copies,
              memory,
              {{"ring_full_records", 3}},
              {{"run #1_copy.json", 0, 9'000'000, 1234}}},
             sink);
  const std::string& page = sink.text();
  CHECK(page.find("<title>prof report: ./app --name=&lt;x&gt;</title>") != std::string::npos);
  CHECK(page.find("node&lt;1&gt;") != std::string::npos);
  CHECK(page.find("1970-01-01 00:00:00 UTC") != std::string::npos);
  CHECK(page.find("10.000 ms") != std::string::npos);  // duration
  // The name in full in the table, escaped; never raw.
  CHECK(page.find("<td class=\"name\">" + kWeirdEscaped + "</td>") != std::string::npos);
  CHECK(page.find("k<a&b") == std::string::npos);
  CHECK(count(page, "<rect class=\"bar\"") == 4);  // 2 kernels, 1 API function, 1 stream
  CHECK(page.find("data-chart=\"kernels\"") != std::string::npos);
  CHECK(page.find("data-chart=\"api-0\"") != std::string::npos);
  CHECK(page.find("25.00% of the run") != std::string::npos);
  CHECK(page.find("<td class=\"n\">2500000</td>") != std::string::npos);
  CHECK(page.find("<td>H2D</td>") != std::string::npos);
  CHECK(page.find("3 events were dropped") != std::string::npos);
  // The memory curve: one path, downsampled, its peak marked.
  REQUIRE(count(page, "<path class=\"curve\"") == 1);
  const size_t d = page.find("<path class=\"curve\" d=\"");
  const std::string path = page.substr(d, page.find('"', d + 23) - d);
  CHECK(count(path, "V") <= kMaxCurvePoints);
  CHECK(page.find("<title>peak 3.00 MiB at 2.500 ms</title>") != std::string::npos);
  // The timeline: linked by a relative, encoded name.
  CHECK(count(page, "href=\"run%20%231_copy.json\"") == 2);
  CHECK(page.find(">run #1_copy.json</a>") != std::string::npos);
  CHECK(page.find("1234") != std::string::npos);
  CHECK(page.find("ui.perfetto.dev") != std::string::npos);
}
