// The report's two passes and its second thread: the light pass over event times
// (scan_event_times) gives the timeline what the full pass would, the planner keeps every part
// within its budget however the times arrive, and the pipe hands rows to its thread in order,
// with kernel names resolved, and brings a consumer's exception back.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/event_pass.hpp"
#include "report/event_pipe.hpp"
#include "report/kernel_names.hpp"
#include "report/report_db.hpp"
#include "report/timeline_events.hpp"
#include "report/timeline_parts.hpp"

using namespace prof::report;
using prof::Database;

namespace {

struct PipeDb {
  Database db;
  explicit PipeDb(const std::string& path = ":memory:") : db(path, Database::Mode::kCreate) {
    db.exec(prof::schema::kCreateSql);
    db.exec(prof::schema::kCopyDirectionsSql);
    db.exec(prof::schema::kIndexSql);
    db.exec(
        "INSERT INTO api_names (api_id, name) VALUES (1, 'hipLaunchKernel'), (2, "
        "'hipMemcpyAsync')");
    db.exec("INSERT INTO strings (string_id, value) VALUES (7, '_Z5scalePf')");
  }
  void call(int64_t id, int64_t sequence, int64_t thread_id, int64_t begin_ns, int64_t api_id = 1) {
    auto st =
        db.prepare("INSERT INTO api_calls VALUES (?1, ?2, ?5, ?3, ?4, ?4 + 5, 0, 0, 0, 0, 0)");
    st.bind(1, id).bind(2, sequence).bind(3, thread_id).bind(4, begin_ns).bind(5, api_id).run();
  }
  void kernel(int64_t id, int64_t stream, bool timed = true) {
    auto st =
        db.prepare("INSERT INTO kernels VALUES (?1, 7, 4096, 0, ?2, 1, 1, 1, 1, 1, 1, 0, ?3, ?4)");
    st.bind(1, id).bind(2, stream);
    if (timed) {
      st.bind(3, id * 10).bind(4, id * 10 + 3);
    } else {
      st.bind_null(3).bind_null(4);
    }
    st.run();
  }
  void copy(int64_t id, int64_t direction) {
    auto st = db.prepare("INSERT INTO copies VALUES (?1, 0, 2, ?2, 64, ?1 * 10, ?1 * 10 + 1)");
    st.bind(1, id).bind(2, direction).run();
  }
};

// Every row as text, and the thread that saw it.
struct Log final : EventConsumer {
  std::vector<std::string> rows;
  std::vector<std::thread::id> threads;
  void api(const ApiRow& r) override { add("api " + std::to_string(r.correlation_id)); }
  void kernel(const KernelRow& r) override {
    std::string unknown;
    const bool named = r.names && r.name_id;
    add("kernel " + std::to_string(r.correlation_id) +
        (named ? " " + std::string(r.names->name_or_unknown(*r.name_id, unknown)) : ""));
  }
  void copy(const CopyRow& r) override { add("copy " + std::to_string(r.correlation_id)); }
  void add(std::string row) {
    rows.push_back(std::move(row));
    threads.push_back(std::this_thread::get_id());
  }
};

struct Throws final : EventConsumer {
  int64_t at;
  explicit Throws(int64_t at_row) : at(at_row) {}
  void api(const ApiRow& r) override {
    if (r.correlation_id == at) throw std::runtime_error("disk full at row " + std::to_string(at));
  }
};

}  // namespace

TEST_CASE("the pipe hands every row over in the pass's order, on its own thread",
          "[report][event_pipe]") {
  PipeDb m;
  for (int64_t id = 1; id <= 10000; ++id) {
    m.call(id, id, 100 + id % 3, id * 10);
    if (id % 3 == 0) m.kernel(id, id % 4);
    if (id % 7 == 0) m.copy(id, 1);
  }
  Log direct;
  scan_events(m.db, RowFilter{}, {&direct});
  // Two groups, each on its own thread, read the same batches.
  Log piped, also;
  {
    EventPipe pipe(m.db, {{&piped}, {&also}});
    scan_events(m.db, RowFilter{}, {&pipe});
    pipe.finish();
  }
  for (const Log* log : {&piped, &also}) {
    REQUIRE(log->rows.size() == direct.rows.size());
    // The same rows in the same order; kernels carry their resolved (demangled) name.
    for (size_t i = 0; i < direct.rows.size(); ++i) {
      std::string want = direct.rows[i];
      if (want.rfind("kernel ", 0) == 0) want += " scale(float*)";
      REQUIRE(log->rows[i] == want);
    }
    CHECK(std::none_of(log->threads.begin(), log->threads.end(),
                       [](std::thread::id id) { return id == std::this_thread::get_id(); }));
  }
  CHECK(piped.threads.front() != also.threads.front());
}

TEST_CASE("a consumer's exception comes back to the pass, and nothing hangs",
          "[report][event_pipe]") {
  PipeDb m;
  for (int64_t id = 1; id <= 20000; ++id) m.call(id, id, 100, id * 10);
  for (int64_t at :
       {5, 19999}) {  // in an early batch (thrown to a later row), in the last (thrown by finish)
    Throws failing(at);
    Log other;  // a group that does not fail stops too
    EventPipe pipe(m.db, {{&other}, {&failing}});
    CHECK_THROWS_WITH(
        [&] {
          scan_events(m.db, RowFilter{}, {&pipe});
          pipe.finish();
        }(),
        "disk full at row " + std::to_string(at));
  }
  // An exception on the pass's side: the pipe's destructor stops its thread.
  Log seen;
  Throws failing_pass(15000);
  CHECK_THROWS([&] {
    EventPipe pipe(m.db, {{&seen}});
    scan_events(m.db, RowFilter{}, {&pipe, &failing_pass});
  }());
}

TEST_CASE("the pass over event times gives the timeline what the full pass gives",
          "[report][event_pass]") {
  PipeDb m;
  m.call(1, 3, 7, 300);
  m.call(2, 1, 8, 100, 2);
  m.copy(2, 1);
  m.call(3, 2, 7, 50);
  m.kernel(3, 1);
  m.kernel(4, 2);         // its call was not recorded
  m.kernel(5, 3, false);  // no device times
  m.call(5, 4, 9, 700);
  for (const RowFilter& filter : {RowFilter{}, RowFilter{std::pair<int64_t, int64_t>{1, 2}}}) {
    EventExtents full_extents, light_extents;
    TimelineLanes full_lanes, light_lanes;
    scan_events(m.db, filter, {&full_extents, &full_lanes});
    scan_event_times(m.db, filter, {&light_extents, &light_lanes});
    CHECK(light_lanes.thread_apis() == full_lanes.thread_apis());
    CHECK(light_lanes.kernel_streams() == full_lanes.kernel_streams());
    CHECK(light_lanes.copy_lanes() == full_lanes.copy_lanes());
    CHECK(light_lanes.copy_streams() == full_lanes.copy_streams());
    for (auto span : {&EventExtents::api_calls, &EventExtents::kernels, &EventExtents::copies}) {
      CHECK((light_extents.*span).count == (full_extents.*span).count);
      CHECK((light_extents.*span).min_ns == (full_extents.*span).min_ns);
      CHECK((light_extents.*span).max_ns == (full_extents.*span).max_ns);
    }
    if (!filter.sequence_range) CHECK(light_extents.rows == full_extents.rows);
  }
}

TEST_CASE("the planner keeps every part within its budget whichever way times arrive",
          "[report][timeline_parts]") {
  // Calls far apart, arriving late ones first and then early ones (the histogram widens both
  // ways), plus a dense burst that needs finer bins than the histogram's.
  PipeDb m;
  int64_t id = 0;
  std::vector<int64_t> times;
  for (int64_t i = 0; i < 3000; ++i) times.push_back(5'000'000'000 - i * 1'000'003);
  for (int64_t i = 0; i < 3000; ++i) times.push_back(i * 997);
  for (int64_t i = 0; i < 400; ++i) times.push_back(2'000'000'000 + i);
  for (int64_t t : times) ++id, m.call(id, id, 100, t);
  const int64_t max_events = 250;
  PartPlanner planner(max_events, INT64_MAX / 4);
  planner.begin_process(m.db);
  scan_event_times(m.db, RowFilter{}, {&planner});
  const std::vector<int64_t> starts = planner.plan(m.db, RowFilter{}, {SourceProcess{}});
  REQUIRE(starts.size() > 1);
  CHECK(starts.front() == INT64_MIN);
  CHECK(std::is_sorted(starts.begin(), starts.end()));
  std::vector<int64_t> per_part(starts.size());
  for (int64_t t : times)
    per_part[std::upper_bound(starts.begin(), starts.end(), t) - starts.begin() - 1]++;
  CHECK(*std::max_element(per_part.begin(), per_part.end()) <= max_events);
  CHECK(*std::min_element(per_part.begin(), per_part.end()) > 0);
  // Few parts: the greedy fill leaves no part less than half full but at the end of a span.
  CHECK(static_cast<int64_t>(starts.size()) <=
        2 * static_cast<int64_t>(times.size()) / max_events + 2);
}

TEST_CASE("kernels and copies read on a second connection come in the same order",
          "[report][event_pass]") {
  char path[] = "/tmp/prof-pipe-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::remove(path);
  PipeDb in_memory;
  CHECK(second_connection(in_memory.db) == nullptr);  // no file to open again
  {
    PipeDb m(path);
    m.db.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '5')");
    for (int64_t id = 1; id <= 9000; ++id) {
      if (id % 5 != 0) m.call(id, id, 100 + id % 4, id * 10, id % 3 == 0 ? 2 : 1);
      if (id % 3 == 0) m.kernel(id, id % 4, id % 9 != 0);
      if (id % 3 == 0 || id % 7 == 0) m.copy(id, id % 2);  // some share an id with a kernel
    }
    std::unique_ptr<Database> second = second_connection(m.db);
    REQUIRE(second != nullptr);
    for (const RowFilter& filter :
         {RowFilter{}, RowFilter{std::pair<int64_t, int64_t>{100, 4000}}}) {
      Log one, two;
      scan_events(m.db, filter, {&one});
      scan_events(m.db, filter, {&two}, ScanOptions{false, second.get()});
      CHECK(two.rows == one.rows);
      CHECK(one.rows.size() > 1000);
    }
    // The pass over event times split the same way (calls here, kernels and copies there) and
    // absorbed gives the same extents, lanes and plan.
    EventExtents whole, calls, device;
    TimelineLanes whole_lanes, call_lanes, device_lanes;
    PartPlanner whole_plan(500, INT64_MAX / 4), call_plan(500, INT64_MAX / 4),
        device_plan(500, INT64_MAX / 4);
    for (PartPlanner* p : {&whole_plan, &call_plan}) p->begin_process(m.db);
    device_plan.begin_process(*second);
    scan_event_times(m.db, RowFilter{}, {&whole, &whole_lanes, &whole_plan});
    scan_event_times(m.db, RowFilter{}, {&calls, &call_lanes, &call_plan}, TimeTables::kCalls);
    scan_event_times(*second, RowFilter{}, {&device, &device_lanes, &device_plan},
                     TimeTables::kDeviceWork);
    calls.absorb(device);
    call_lanes.absorb(device_lanes);
    call_plan.absorb(device_plan);
    CHECK(calls.rows == whole.rows);
    CHECK(calls.kernels.count == whole.kernels.count);
    CHECK(calls.copies.max_ns == whole.copies.max_ns);
    CHECK(call_lanes.copy_lanes() == whole_lanes.copy_lanes());
    CHECK(call_lanes.thread_apis() == whole_lanes.thread_apis());
    const auto plan = whole_plan.plan(m.db, RowFilter{}, {SourceProcess{}});
    CHECK(plan.size() > 3);
    CHECK(call_plan.plan(m.db, RowFilter{}, {SourceProcess{}}) == plan);
  }
  std::remove(path);
}
