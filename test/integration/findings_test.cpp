// The findings rules (report/findings.hpp, docs/findings.md) on dbs built call by call: each rule
// fires on its pattern with the time at stake its method states, and stays quiet on the pattern
// written well (a pipeline on two streams, one final synchronize).
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/findings.hpp"
#include "report/json_value.hpp"
#include "report/merged_db.hpp"
#include "report_test_support.hpp"
#include "runtimes/api_id.hpp"
#include "runtimes/runtimes.hpp"

using namespace prof::report;
using prof::ApiId;
using prof::Database;
using prof::report::test::TempDir;

namespace {

constexpr int64_t kUs = 1000, kMs = 1000 * kUs;
constexpr int64_t kT0 = 1'000'000'000;  // the run's first call

// One process's db, written call by call. Times are relative to kT0.
class RunDb {
 public:
  RunDb(const std::string& path, int64_t pid, std::optional<int64_t> rank = std::nullopt)
      : db_(std::make_unique<Database>(path, Database::Mode::kCreate)) {
    db_->exec(prof::schema::kCreateSql);
    db_->exec(prof::schema::kCopyDirectionsSql);
    db_->exec("INSERT INTO meta (key, value) VALUES ('schema_version', '6'), ('pid', '" +
              std::to_string(pid) + "'), ('host_name', 'testhost'), ('start_ns', '1')" +
              (rank ? ", ('rank', '" + std::to_string(*rank) + "')" : std::string()));
    db_->exec("INSERT INTO streams VALUES (0, 0, -1, 0), (1, 4096, 0, 0), (2, 8192, 0, 0)");
  }
  // A call [begin, end) us... in ns; returns its correlation id (= its sequence).
  int64_t call(ApiId api, int64_t begin, int64_t end, int64_t stream = -1, int64_t bytes = 0,
               int64_t aux = 0, int64_t result = 0, int64_t thread = 7) {
    const int64_t id = next_++;
    prof::Statement st = db_->prepare(
        "INSERT INTO api_calls (correlation_id, sequence, api_id, thread_id, begin_ns, end_ns,"
        " result, stream_index, device, bytes, aux) VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8,"
        " ?9)");
    st.bind(1, id).bind(2, static_cast<int64_t>(api)).bind(3, thread).bind(4, kT0 + begin);
    st.bind(5, kT0 + end).bind(6, result);
    if (stream >= 0)
      st.bind(7, stream);
    else
      st.bind_null(7);
    st.bind(8, bytes).bind(9, aux).run();
    return id;
  }
  void kernel(int64_t correlation_id, int64_t stream, int64_t begin, int64_t end) {
    prof::Statement st = db_->prepare(
        "INSERT INTO kernels (correlation_id, name_id, function_address, device, stream_index,"
        " grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem_bytes, device_begin_ns,"
        " device_end_ns) VALUES (?1, 1, 0, 0, ?2, 1, 1, 1, 1, 1, 1, 0, ?3, ?4)");
    st.bind(1, correlation_id).bind(2, stream).bind(3, kT0 + begin).bind(4, kT0 + end).run();
  }
  void copy(int64_t correlation_id, int64_t stream, int direction, int64_t bytes, int64_t begin,
            int64_t end) {
    prof::Statement st = db_->prepare(
        "INSERT INTO copies (correlation_id, device, stream_index, direction, bytes,"
        " device_begin_ns, device_end_ns) VALUES (?1, 0, ?2, ?3, ?4, ?5, ?6)");
    st.bind(1, correlation_id).bind(2, stream).bind(3, direction).bind(4, bytes);
    st.bind(5, kT0 + begin).bind(6, kT0 + end).run();
  }
  // A launch on `stream` at host time `at` (2 us long) whose kernel runs [begin, end).
  int64_t launch(int64_t stream, int64_t at, int64_t begin, int64_t end) {
    const int64_t id = call(ApiId::hipLaunchKernel, at, at + 2 * kUs, stream);
    kernel(id, stream, begin, end);
    return id;
  }
  Database& db() { return *db_; }
  Analysis analyze(const AnalyzeOptions& options = {}) {
    return prof::report::analyze(*db_, options);
  }

 private:
  std::unique_ptr<Database> db_;
  int64_t next_ = 1;
};

const Finding* find_rule(const Analysis& analysis, const std::string& rule) {
  for (const Finding& f : analysis.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

// The well-written program: pinned buffers, chunks copied in, computed and copied out on two
// streams so one stream's copies overlap the other's kernels, one synchronize at the end.
void write_pipeline(RunDb& run) {
  run.call(ApiId::hipHostMalloc, 0, 100 * kUs, -1, 1 << 20, 0x1000);
  int64_t at = 200 * kUs;
  for (int chunk = 0; chunk < 40; ++chunk) {
    const int64_t stream = 1 + chunk % 2, start = 300 * kUs + chunk * 500 * kUs;
    const int64_t in = run.call(ApiId::hipMemcpyAsync, at, at + 3 * kUs, stream, 1 << 20, 1);
    run.copy(in, stream, 1, 1 << 20, start, start + 200 * kUs);
    run.launch(stream, at + 5 * kUs, start + 250 * kUs, start + 750 * kUs);
    const int64_t out =
        run.call(ApiId::hipMemcpyAsync, at + 10 * kUs, at + 13 * kUs, stream, 1 << 20, 2);
    run.copy(out, stream, 2, 1 << 20, start + 800 * kUs, start + 1000 * kUs);
    at += 20 * kUs;
  }
  run.call(ApiId::hipDeviceSynchronize, at, 300 * kUs + 40 * 500 * kUs + 1000 * kUs);
  run.call(ApiId::hipHostFree, 22 * kMs, 22 * kMs + 50 * kUs, -1, 0, 0x1000);
}

}  // namespace

TEST_CASE("findings: a pipelined program on two streams gets no finding", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("clean.db"), 100);
  write_pipeline(run);
  const Analysis analysis = run.analyze();
  CHECK(analysis.run_ns > 20 * kMs);
  for (const Finding& f : analysis.findings) INFO(f.rule << " " << f.evidence);
  CHECK(analysis.findings.empty());
  CHECK(largest_share(analysis) <= 0.05);
}

TEST_CASE("findings: sync-copy counts the blocking copies and their host time", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("sync_copy.db"), 101);
  for (int i = 0; i < 20; ++i) {
    const int64_t at = i * 5 * kMs;
    const int64_t id = run.call(ApiId::hipMemcpy, at, at + kMs, 0, 4 << 20, 1);
    run.copy(id, 0, 1, 4 << 20, at + 10 * kUs, at + kMs);
  }
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "sync-copy");
  REQUIRE(f);
  CHECK(f->count == 20);
  CHECK(f->time_at_stake_ns == 20 * kMs);
  CHECK(f->pid == 101);
  REQUIRE(f->sites.size() == 1);
  CHECK(f->sites[0].api == "hipMemcpy");
  CHECK(f->sites[0].calls == 20);
  CHECK(f->sites[0].first_sequence == 1);
  CHECK(f->sites[0].sequences == std::vector<int64_t>{1, 2, 3, 4, 5});
  CHECK(f->sites[0].text ==
        "hipMemcpy, calls #1, #2, #3, #4, #5 ... (20 calls, those with most at stake shown)");
  CHECK(f->share == Approx(20.0 / 96).epsilon(0.01));
}

TEST_CASE("findings: sync-after-launch measures the device idle between the kernels",
          "[findings]") {
  TempDir dir;
  RunDb run(dir.file("sync_after_launch.db"), 102);
  // Each iteration: launch at t, the kernel runs [t+10us, t+1ms), the host waits until it ends,
  // then computes before the next launch: the device idles from t+1ms to t+1420us.
  for (int i = 0; i < 12; ++i) {
    const int64_t t = i * 1410 * kUs;
    run.launch(1, t, t + 10 * kUs, t + kMs);
    run.call(ApiId::hipStreamSynchronize, t + 3 * kUs, t + kMs + 5 * kUs, 1);
  }
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "sync-after-launch");
  REQUIRE(f);
  CHECK(f->count == 12);
  CHECK(f->time_at_stake_ns == 11 * 420 * kUs);
  REQUIRE(!f->sites.empty());
  CHECK(f->sites[0].api == "hipStreamSynchronize");
  CHECK(f->sites[0].first_sequence == 2);
}

TEST_CASE("findings: launches with one wait at the end are not sync-after-launch", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("one_wait.db"), 103);
  for (int i = 0; i < 30; ++i) run.launch(1, i * 5 * kUs, i * kMs + 10 * kUs, (i + 1) * kMs);
  run.call(ApiId::hipDeviceSynchronize, 150 * kUs, 30 * kMs + 5 * kUs);
  const Analysis analysis = run.analyze();
  CHECK_FALSE(find_rule(analysis, "sync-after-launch"));
  CHECK_FALSE(find_rule(analysis, "launch-bound"));
  CHECK_FALSE(find_rule(analysis, "device-idle"));
}

TEST_CASE("findings: device-idle names the calls in the gaps, or host computation", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("idle.db"), 104);
  run.launch(1, 0, 10 * kUs, 2 * kMs);
  // Gap 1 [2 ms, 7 ms): the host is in hipMalloc for 3 ms of it.
  run.call(ApiId::hipMalloc, 3 * kMs, 6 * kMs, -1, 1 << 20, 0x5000);
  run.launch(1, 6900 * kUs, 7 * kMs, 8 * kMs);
  // Gap 2 [8 ms, 12 ms): no call at all. Gap 3 [12.5 ms, 12.9 ms) is under the threshold.
  run.launch(1, 11900 * kUs, 12 * kMs, 12500 * kUs);
  run.launch(1, 12800 * kUs, 12900 * kUs, 13 * kMs);
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "device-idle");
  REQUIRE(f);
  CHECK(f->count == 2);
  CHECK(f->time_at_stake_ns == 9 * kMs);
  CHECK_THAT(f->evidence, Catch::Contains("hipMalloc 3.000 ms"));
  // The two launches that end the gaps overlap them by 2 us each.
  CHECK_THAT(f->evidence, Catch::Contains("hipLaunchKernel 4.000 us"));
  CHECK_THAT(f->evidence, Catch::Contains("in no API call for 5.996 ms (host computation)"));
  // Sites: the launches that gave the device work again, weighed by their gaps (5 and 4 ms),
  // before hipMalloc (3 ms of overlap).
  REQUIRE(f->sites.size() == 2);
  CHECK(f->sites[0].api == "hipLaunchKernel");
  CHECK(f->sites[0].sequences == std::vector<int64_t>{3, 4});
  CHECK(f->sites[1].api == "hipMalloc");
}

TEST_CASE("findings: launch-bound fires on short kernels launched slowly", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("launch_bound.db"), 105);
  // 30 kernels of 10 us, launched every 50 us: the device idles 40 us between each pair.
  for (int i = 0; i < 30; ++i) {
    const int64_t t = i * 50 * kUs;
    run.launch(1, t, t + 5 * kUs, t + 15 * kUs);
  }
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "launch-bound");
  REQUIRE(f);
  CHECK(f->count == 30);
  CHECK(f->time_at_stake_ns == 29 * 40 * kUs);
  CHECK_THAT(f->evidence, Catch::Contains("median kernel 10.000 us"));
}

TEST_CASE("findings: kernels longer than the launch interval are not launch-bound", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("device_bound.db"), 106);
  // Launched every 10 us, each 100 us long: the queue fills and the device never waits.
  for (int i = 0; i < 30; ++i) run.launch(1, i * 10 * kUs, i * 100 * kUs, (i + 1) * 100 * kUs);
  run.call(ApiId::hipDeviceSynchronize, 300 * kUs, 3 * kMs);
  CHECK_FALSE(find_rule(run.analyze(), "launch-bound"));
}

TEST_CASE("findings: alloc-churn fires on a free and malloc of one size per iteration",
          "[findings]") {
  TempDir dir;
  RunDb run(dir.file("churn.db"), 107);
  for (int i = 0; i < 12; ++i) {
    const int64_t t = i * kMs, pointer = 0x10000 + (i % 2) * 0x1000;
    run.call(ApiId::hipMalloc, t, t + 100 * kUs, -1, 1 << 20, pointer);
    run.call(ApiId::hipFree, t + 500 * kUs, t + 550 * kUs, -1, 0, pointer);
  }
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "alloc-churn");
  REQUIRE(f);
  CHECK(f->count == 11);  // every allocation after the first follows a free of its size
  CHECK(f->time_at_stake_ns == 11 * 150 * kUs);
  CHECK_THAT(f->evidence, Catch::Contains("1 MiB 11 times"));
}

TEST_CASE("findings: buffers allocated once and freed at the end are not churn", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("no_churn.db"), 108);
  for (int i = 0; i < 12; ++i)
    run.call(ApiId::hipMalloc, i * kMs, i * kMs + 100 * kUs, -1, 1 << 20, 0x10000 + i * 0x1000);
  for (int i = 0; i < 12; ++i)
    run.call(ApiId::hipFree, 20 * kMs + i * kMs, 20 * kMs + i * kMs + 50 * kUs, -1, 0,
             0x10000 + i * 0x1000);
  CHECK_FALSE(find_rule(run.analyze(), "alloc-churn"));
}

TEST_CASE("findings: small-copies estimates the time at the best large-copy bandwidth",
          "[findings]") {
  TempDir dir;
  RunDb run(dir.file("small.db"), 109);
  // One 1 MiB copy at 1 byte/ns, then 100 copies of 4 KiB taking 20 us each (0.2 bytes/ns).
  int64_t id = run.call(ApiId::hipMemcpyAsync, 0, 5 * kUs, 1, 1 << 20, 1);
  run.copy(id, 1, 1, 1 << 20, 10 * kUs, 10 * kUs + (1 << 20));
  for (int i = 0; i < 100; ++i) {
    const int64_t t = 2 * kMs + i * 30 * kUs;
    id = run.call(ApiId::hipMemcpyAsync, t, t + 5 * kUs, 1, 4096, 1);
    run.copy(id, 1, 1, 4096, t + 6 * kUs, t + 26 * kUs);
  }
  run.call(ApiId::hipDeviceSynchronize, 6 * kMs, 6 * kMs + 10 * kUs);
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "small-copies");
  REQUIRE(f);
  CHECK(f->count == 100);
  CHECK(f->time_at_stake_ns == 100 * 20 * kUs - 100 * 4096);
  CHECK_THAT(f->method, Catch::Contains("1000 MB/s"));
}

TEST_CASE("findings: serialized-stream fires when one stream does copies and kernels",
          "[findings]") {
  TempDir dir;
  RunDb run(dir.file("serial.db"), 110);
  for (int i = 0; i < 4; ++i) {
    const int64_t t = i * 3 * kMs;
    int64_t id = run.call(ApiId::hipMemcpyAsync, t, t + 5 * kUs, 0, 1 << 20, 1);
    run.copy(id, 0, 1, 1 << 20, t + 10 * kUs, t + 510 * kUs);
    run.launch(0, t + 10 * kUs, t + 510 * kUs, t + 2510 * kUs);
    id = run.call(ApiId::hipMemcpyAsync, t + 20 * kUs, t + 25 * kUs, 0, 1 << 20, 2);
    run.copy(id, 0, 2, 1 << 20, t + 2510 * kUs, t + 3 * kMs);
  }
  run.call(ApiId::hipDeviceSynchronize, 100 * kUs, 12 * kMs);
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "serialized-stream");
  REQUIRE(f);
  CHECK(f->time_at_stake_ns == 4 * 990 * kUs);  // the copies' time, shorter than the kernels'
  CHECK_THAT(f->evidence, Catch::Contains("the default stream"));
  // The clean pipeline does the same work on two streams: no such finding.
  RunDb clean(dir.file("two_streams.db"), 111);
  write_pipeline(clean);
  CHECK_FALSE(find_rule(clean.analyze(), "serialized-stream"));
}

TEST_CASE("findings: api-errors counts failures but not a query's not-ready", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("errors.db"), 112);
  run.call(ApiId::hipMalloc, 0, kUs, -1, 1 << 20, 0x1000);
  run.call(ApiId::hipMalloc, 2 * kUs, 3 * kUs, -1, 1LL << 40, 0, 2);
  run.call(ApiId::hipStreamQuery, 4 * kUs, 5 * kUs, 1, 0, 0, 600);
  run.call(ApiId::hipMalloc, 6 * kUs, 7 * kUs, -1, 1LL << 40, 0, 2);
  run.call(ApiId::hipFree, 100 * kMs, 100 * kMs + kUs, -1, 0, 0x1000);
  const Analysis analysis = run.analyze();
  const Finding* f = find_rule(analysis, "api-errors");
  REQUIRE(f);  // shown though its share is tiny
  CHECK(f->count == 2);
  CHECK(f->evidence == "hipMalloc: result 2 in 2 calls (the first #2)");
  REQUIRE(f->sites.size() == 1);
  CHECK(f->sites[0].sequences == std::vector<int64_t>{2, 4});
}

TEST_CASE("findings: rank-imbalance compares the ranks of a merged db to the median",
          "[findings]") {
  TempDir dir;
  const int64_t busy_ms[] = {10, 11, 25};
  for (int rank = 0; rank < 3; ++rank) {
    RunDb run(dir.file("rank" + std::to_string(rank) + ".db"), 200 + rank, rank);
    run.launch(1, 0, 10 * kUs, 10 * kUs + busy_ms[rank] * kMs);
    // Each rank waits in the barrier from its kernel's end until 30 ms.
    run.call(ApiId::MPI_Barrier, 10 * kUs + busy_ms[rank] * kMs, 30 * kMs);
  }
  Database merged(dir.file("merged.db"), Database::Mode::kCreate);
  create_merged_schema(merged);
  for (int rank = 0; rank < 3; ++rank) {
    prof::Statement attach = merged.prepare("ATTACH DATABASE ?1 AS source");
    attach.bind(1, dir.file("rank" + std::to_string(rank) + ".db")).run();
    SourceProcess process{rank + 1, 200 + rank, "testhost", rank, "./app"};
    copy_process(merged, "source", process, "rank.db");
    merged.exec("DETACH DATABASE source");
  }
  finish_merged_db(merged, 3, "test");
  const Analysis analysis = analyze(merged, AnalyzeOptions{});
  CHECK(analysis.processes.size() == 3);
  const Finding* f = find_rule(analysis, "rank-imbalance");
  REQUIRE(f);
  CHECK(f->rank == 2);
  CHECK(f->pid == 202);
  CHECK(f->time_at_stake_ns == 14 * kMs);  // 25 ms against the median rank's 11 ms
  int imbalances = 0;
  for (const Finding& each : analysis.findings) {
    if (each.rule != "rank-imbalance") continue;
    ++imbalances;  // device busy time, and the MPI wait it causes: rank 2 waits 14 ms less
    CHECK(each.rank == 2);
    CHECK(each.count == 1);
    CHECK(each.time_at_stake_ns == 14 * kMs);
  }
  CHECK(imbalances == 2);
}

TEST_CASE("findings: the JSON form parses and carries every field", "[findings]") {
  TempDir dir;
  RunDb run(dir.file("json.db"), 113);
  for (int i = 0; i < 20; ++i) run.call(ApiId::hipMemcpy, i * 2 * kMs, i * 2 * kMs + kMs, 0, 64);
  run.call(ApiId::hipMalloc, 50 * kMs, 50 * kMs + kUs, -1, 8, 0, 2);
  StringSink json;
  write_findings(run.analyze(), FindingsFormat::kJson, json);
  const JsonValue root = JsonValue::parse(json.text());
  int64_t version = 0;
  REQUIRE(root.find("findings_version"));
  CHECK((root.find("findings_version")->integer(version) && version == kFindingsVersion));
  REQUIRE(root.find("processes"));
  CHECK(root.find("processes")->elements().size() == 1);
  const std::vector<JsonValue>& findings = root.find("findings")->elements();
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].find("rule")->string() == "sync-copy");  // longest first
  for (const char* key : {"rule", "title", "time_at_stake_ns", "share", "method", "count", "sites",
                          "evidence", "fix", "pid", "rank", "process_id"})
    CHECK(findings[0].find(key) != nullptr);
  CHECK(findings[0].find("rank")->type() == JsonValue::Type::kNull);
  const JsonValue& site = findings[0].find("sites")->elements().at(0);
  CHECK(site.find("api")->string() == "hipMemcpy");
  CHECK(site.find("sequences")->elements().size() == 5);
  StringSink text;
  write_findings(run.analyze(), FindingsFormat::kText, text);
  CHECK_THAT(text.text(), Catch::StartsWith("prof --analyze: 2 findings over a run of"));
  CHECK_THAT(text.text(), Catch::Contains("1. [sync-copy] "));
  CHECK_THAT(text.text(), Catch::Contains("   call sites      hipMemcpy, calls #1, #2"));
}

// Every device runtime's own calls, taken from its table and description (no runtime named
// here): its launches followed by its first wait call, and its blocking copies.
TEST_CASE("findings: each device runtime's waits and blocking copies are found", "[findings]") {
  for (const prof::RuntimeDescription* runtime : prof::kRuntimeDescriptions) {
    if (!prof::is_device_runtime(runtime->id)) continue;
    const prof::ApiInfo *launch = nullptr, *copy = nullptr;
    for (const prof::ApiInfo& api : prof::kApis) {
      if (api.runtime != runtime->id) continue;
      if (!launch && api.activity == prof::HookActivity::kKernel) launch = &api;
      if (!copy && api.activity == prof::HookActivity::kCopySync) copy = &api;
    }
    INFO(runtime->name);
    REQUIRE(launch);
    REQUIRE(copy);
    REQUIRE(!runtime->wait_calls.empty());
    const auto wait = runtime->wait_calls.front();
    TempDir dir;
    RunDb run(dir.file("runtime.db"), 120);
    for (int i = 0; i < 12; ++i) {
      const int64_t t = i * 2 * kMs;
      const int64_t id = run.call(static_cast<ApiId>(launch->id), t, t + 2 * kUs, 1);
      run.kernel(id, 1, t + 10 * kUs, t + kMs);
      run.call(wait, t + 3 * kUs, t + kMs + 5 * kUs, 1);
      run.call(static_cast<ApiId>(copy->id), t + 1500 * kUs, t + 1600 * kUs, -1, 4096, 2);
    }
    const Analysis analysis = run.analyze();
    const Finding* waits = find_rule(analysis, "sync-after-launch");
    REQUIRE(waits);
    CHECK(waits->sites.at(0).api == prof::api_name(static_cast<uint16_t>(wait)));
    const Finding* copies = find_rule(analysis, "sync-copy");
    REQUIRE(copies);
    CHECK(copies->count == 12);
    CHECK(copies->sites.at(0).api == copy->name);
  }
}
