#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "report/chrome_json_writer.hpp"

using namespace prof::report;

TEST_CASE("Chrome JSON events: metadata, slices, flows and otherData", "[report][json]") {
  StringSink sink;
  ChromeJsonWriter writer(sink, 1'000'000);
  writer.begin();
  writer.process_name(1, "Runtime API", 0);
  writer.thread_name(1, 42, "Thread 42", 3);
  JsonObject args;
  args.add("bytes", int64_t{16}).add("name", "a\"b").add_null("stream");
  writer.complete(1, 42, "k<\"x\">", "api", 1'001'234, 1'003'000, args);
  writer.flow(7, 1, 42, 3, 1, 1'002'000, 1'002'500,
              FlowSource{"\"k\"", "\"api\"", 1'001'234, 1'003'000});
  JsonObject other;
  other.add("pid", "4242");
  writer.end(other);
  CHECK(sink.text() ==
        "{\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Runtime "
        "API\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"tid\":0,\"args\":{\"sort_"
        "index\":0}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":42,\"args\":{\"name\":\"Thread "
        "42\"}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":42,\"args\":{\"sort_"
        "index\":3}},\n"
        "{\"ph\":\"X\",\"name\":\"k<\\\"x\\\">\",\"cat\":\"api\",\"pid\":1,\"tid\":42,\"ts\":1.234,"
        "\"dur\":1.766,"
        "\"args\":{\"bytes\":16,\"name\":\"a\\\"b\",\"stream\":null}},\n"
        "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":7,\"pid\":1,\"tid\":42,\"ts\":2."
        "117},\n"
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":7,\"pid\":3,"
        "\"tid\":1,\"ts\":2.250}\n"
        "],\n\"otherData\":{\"pid\":\"4242\"},\n\"display\\u0054imeUnit\":\"ns\"\n}\n");
}

TEST_CASE("an empty trace is still a valid document", "[report][json]") {
  StringSink sink;
  ChromeJsonWriter writer(sink, 0);
  writer.begin();
  writer.end(JsonObject{});
  CHECK(sink.text() ==
        "{\"traceEvents\":[\n\n],\n\"otherData\":{},\n\"display\\u0054imeUnit\":\"ns\"\n}\n");
}

// Perfetto reads a ts or dur as (int64)(value * 1000.0): 1.005 us would be 1004 ns, so that value
// gets the smallest nudge that reads back (docs/formats.md, "Times"); 1.234 needs none.
TEST_CASE("a time Perfetto would truncate 1 ns short carries a nudge", "[report][json]") {
  StringSink sink;
  ChromeJsonWriter writer(sink, 0);
  writer.begin();
  writer.complete(1, 1, "a", "api", 1'005, 1'005 + 8'196'532, JsonObject{});
  writer.complete(1, 1, "b", "api", 1'234, 2'468, JsonObject{});
  writer.end(JsonObject{});
  const std::string text = sink.text();
  CHECK(text.find("\"ts\":1.0050001,\"dur\":8196.5320001,") != std::string::npos);
  CHECK(text.find("\"ts\":1.234,\"dur\":1.234,") != std::string::npos);
  for (int64_t ns = 0; ns < 2'000'000; ns += 7) {
    StringSink one;
    ChromeJsonWriter w(one, 0);
    w.begin();
    w.complete(1, 1, "x", "api", ns, ns, JsonObject{});
    w.end(JsonObject{});
    const std::string t = one.text();
    const size_t at = t.find("\"ts\":") + 5;
    const double us = std::strtod(t.c_str() + at, nullptr);
    INFO(t.substr(at, 14));
    REQUIRE(static_cast<int64_t>(us * 1000.0) == ns);
    REQUIRE(std::llround(us * 1000.0) == ns);
  }
}

namespace {
size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE(
    "a timeline split by time: every part names every lane, keeps its arrows whole and its "
    "counters' values",
    "[report][json]") {
  StringSink first, second, third;
  ChromeJsonWriter writer({&first, &second, &third}, {INT64_MIN, 10'000, 20'000}, 0);
  writer.begin();
  writer.process_name(1, "Runtime API", 0);
  JsonObject args;
  writer.complete(1, 5, "hipLaunchKernel", "api", 1'000, 2'000, args);  // part 1
  writer.complete(1, 5, "hipMemcpy", "api", 12'000, 13'000, args);      // part 2
  writer.complete(3, 1, "kernel", "kernel", 21'000, 22'000, args);      // part 3
  // The launch in part 1, its kernel in part 3: the call's slice is repeated in part 3, once.
  writer.flow(8, 1, 5, 3, 1, 21'000, 22'000,
              FlowSource{"\"hipLaunchKernel\"", "\"api\"", 1'000, 2'000});
  writer.flow(8, 1, 5, 3, 1, 21'500, 22'000,
              FlowSource{"\"hipLaunchKernel\"", "\"api\"", 1'000, 2'000});
  writer.counter(2, "Device memory in use", 500, "bytes",
                 64);                       // part 1 only: parts 2 and 3 start at 64
  writer.thread_name(3, 1, "Stream 0", 0);  // a name after events still reaches every part
  writer.end(JsonObject{});
  for (const StringSink* part : {&first, &second, &third}) {
    CHECK(count_of(part->text(), "\"process_name\"") == 1);
    CHECK(count_of(part->text(), "\"Stream 0\"") == 1);
    CHECK(part->text().rfind("{\"traceEvents\":[\n", 0) == 0);
  }
  CHECK(count_of(first.text(), "\"ph\":\"X\"") == 1);
  CHECK(count_of(first.text(), "\"ph\":\"s\"") == 0);
  CHECK(count_of(second.text(), "\"ph\":\"C\"") == 1);
  CHECK(count_of(second.text(), "\"ts\":10.000,\"args\":{\"bytes\":64}") == 1);
  CHECK(count_of(third.text(), "\"repeated_from_part\":1") == 1);
  CHECK(count_of(third.text(), "\"ph\":\"s\"") == 2);
  CHECK(count_of(third.text(), "\"ph\":\"f\"") == 2);
  CHECK(count_of(third.text(), "\"ts\":20.000,\"args\":{\"bytes\":64}") == 1);
  CHECK(writer.parts() == 3);
  CHECK(writer.part_events(0) == 2);          // the slice and the counter sample
  CHECK(writer.part_span(2).first == 1'000);  // the repeated call
  CHECK(writer.part_span(2).second == 22'000);
}

TEST_CASE("an arrow never starts after it ends: short work inside a long call", "[report][json]") {
  // The device stamps the work's own times: it began and ended while its call ran, before the
  // call's middle. Both viewers drop a flow whose end comes before its start.
  StringSink sink;
  ChromeJsonWriter writer(sink, 1'000'000);
  writer.begin();
  writer.complete(1, 42, "hipMemcpyAsync", "api", 1'000'000, 1'010'000, JsonObject{});
  writer.flow(9, 1, 42, 3, 1, 1'001'000, 1'002'000,
              FlowSource{"\"hipMemcpyAsync\"", "\"api\"", 1'000'000, 1'010'000});
  writer.end(JsonObject{});
  const std::string& text = sink.text();
  CHECK(text.find("{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":9,\"pid\":1,\"tid\":"
                  "42,\"ts\":1.499}") != std::string::npos);
  CHECK(text.find("{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":9,"
                  "\"pid\":3,\"tid\":1,\"ts\":1.500}") != std::string::npos);
}
