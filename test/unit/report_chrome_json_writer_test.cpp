#include <catch2/catch.hpp>

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
  writer.flow(7, 1, 42, 1'001'234, 3, 1, 1'002'000);
  JsonObject other;
  other.add("pid", "4242");
  writer.end(other);
  CHECK(sink.text() ==
        "{\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Runtime API\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"tid\":0,\"args\":{\"sort_index\":0}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":42,\"args\":{\"name\":\"Thread 42\"}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":42,\"args\":{\"sort_index\":3}},\n"
        "{\"ph\":\"X\",\"name\":\"k<\\\"x\\\">\",\"cat\":\"api\",\"pid\":1,\"tid\":42,\"ts\":1.234,\"dur\":1.766,"
        "\"args\":{\"bytes\":16,\"name\":\"a\\\"b\",\"stream\":null}},\n"
        "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":7,\"pid\":1,\"tid\":42,\"ts\":1.234},\n"
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":7,\"pid\":3,\"tid\":1,\"ts\":2.000}\n"
        "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"pid\":\"4242\"}\n}\n");
}

TEST_CASE("an empty trace is still a valid document", "[report][json]") {
  StringSink sink;
  ChromeJsonWriter writer(sink, 0);
  writer.begin();
  writer.end(JsonObject{});
  CHECK(sink.text() == "{\"traceEvents\":[\n\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{}\n}\n");
}
