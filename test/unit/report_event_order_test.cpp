// The report's one pass over the events (report/event_pass.hpp) and the order of the timeline's
// slices (the pass's: correlation id), on small dbs whose correlation ids, sequences and times
// disagree.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/chrome_json_writer.hpp"
#include "report/event_pass.hpp"
#include "report/timeline_events.hpp"

using namespace prof::report;
using prof::Database;

namespace {

struct EventDb {
  Database db{":memory:", Database::Mode::kCreate};
  explicit EventDb(bool with_index = true) {
    db.exec(prof::schema::kCreateSql);
    db.exec(prof::schema::kCopyDirectionsSql);
    if (with_index) db.exec(prof::schema::kSequenceIndexSql);
    db.exec(prof::schema::kIndexSql);
    db.exec("INSERT INTO api_names (api_id, name) VALUES (1, 'hipLaunchKernel')");
  }
  // sequence < 0: NULL.
  void call(int64_t correlation_id, int64_t sequence, int64_t thread_id, int64_t begin_ns) {
    auto st = db.prepare("INSERT INTO api_calls VALUES (?1, ?2, 1, ?3, ?4, ?4 + 5, 0, 0, 0, 0, 0)");
    st.bind(1, correlation_id).bind(3, thread_id).bind(4, begin_ns);
    if (sequence < 0)
      st.bind_null(2);
    else
      st.bind(2, sequence);
    st.run();
  }
  void kernel(int64_t correlation_id) {
    auto st = db.prepare(
        "INSERT INTO kernels VALUES (?1, NULL, 4096, 0, 0, 1, 1, 1, 1, 1, 1, 0, ?1 * 10, ?1 * 10 + "
        "3)");
    st.bind(1, correlation_id).run();
  }
  void copy(int64_t correlation_id) {
    auto st = db.prepare("INSERT INTO copies VALUES (?1, 0, 0, 1, 64, NULL, NULL)");
    st.bind(1, correlation_id).run();
  }
  // Correlation ids of the slices the timeline writes, in file order.
  std::vector<int64_t> slice_order(const RowFilter& filter = {}) {
    StringSink sink;
    ChromeJsonWriter writer(sink, 0);
    writer.begin();
    TimelineContext ctx{db, filter, writer, {}};
    read_names(ctx);
    TimelineEventWriter events(
        ctx,
        [](int64_t, int64_t, int64_t) {
          return Lane{2, 1};
        },
        [](int64_t, int64_t) {
          return Lane{3, 1};
        });
    scan_events(db, filter, {&events});
    writer.end();
    std::vector<int64_t> ids;
    static const std::regex id("\"ph\":\"X\".*\"correlation_id\":([0-9]+)");
    const std::string& text = sink.text();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator();
         ++it)
      ids.push_back(std::stoll((*it)[1]));
    return ids;
  }
};

struct Seen final : EventConsumer {
  std::vector<std::string> rows;
  void api(const ApiRow& r) override { rows.push_back("api " + std::to_string(r.correlation_id)); }
  void kernel(const KernelRow& r) override {
    rows.push_back("kernel " + std::to_string(r.correlation_id) + " thread " +
                   (r.call_thread_id ? std::to_string(*r.call_thread_id) : "-"));
  }
  void copy(const CopyRow& r) override {
    rows.push_back("copy " + std::to_string(r.correlation_id) + " thread " +
                   (r.call_thread_id ? std::to_string(*r.call_thread_id) : "-"));
  }
};

}  // namespace

TEST_CASE("slices follow correlation order, whatever sequences and times say",
          "[report][timeline]") {
  EventDb m;
  m.call(1, 3, 7, 300);
  m.call(2, 1, 8, 100);
  m.kernel(2);
  m.call(3, 4, 7, 400);
  m.call(4, 2, 8, 200);
  m.kernel(4);
  // A kernel's slice comes before its call's (the pass feeds device work up to a call's id first).
  CHECK(m.slice_order() == std::vector<int64_t>{1, 2, 2, 3, 4, 4});
  // A range is a range of sequences; a kernel goes with its call.
  CHECK(m.slice_order(RowFilter{std::pair<int64_t, int64_t>{1, 2}}) ==
        std::vector<int64_t>{2, 2, 4, 4});
}

TEST_CASE("calls without a sequence are drawn, and a range leaves them out", "[report][timeline]") {
  EventDb m;
  m.call(1, 1, 7, 100);
  m.call(2, -1, 7, 300);
  m.call(3, -1, 7, 200);
  m.call(4, 2, 7, 400);
  m.copy(4);  // no device times: not drawn
  CHECK(m.slice_order() == std::vector<int64_t>{1, 2, 3, 4});
  CHECK(m.slice_order(RowFilter{std::pair<int64_t, int64_t>{2, 2}}) == std::vector<int64_t>{4});
}

TEST_CASE("a db numbered by id is read in rowid order, and a range is a range of ids",
          "[report][timeline]") {
  EventDb m(/*with_index=*/false);
  m.db.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '5'), ('end_ns', '1000')");
  m.call(1, 1, 7, 100);
  m.call(2, 2, 8, 100);  // same begin: thread 8 after thread 7
  m.call(3, 3, 7, 150);
  m.call(4, 4, 9, 150);
  CHECK(calls_numbered_by_id(m.db));
  RowFilter by_id;
  by_id.calls_numbered_by_id = true;
  CHECK(m.slice_order(by_id) == std::vector<int64_t>{1, 2, 3, 4});
  by_id.sequence_range = std::pair<int64_t, int64_t>{2, 3};
  CHECK(m.slice_order(by_id) == std::vector<int64_t>{2, 3});
  // Renumbered at the end (the sequence index), or an older schema: not numbered by id.
  m.db.exec(prof::schema::kSequenceIndexSql);
  CHECK_FALSE(calls_numbered_by_id(m.db));
  m.db.exec(
      "DROP INDEX api_calls_sequence; UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  CHECK_FALSE(calls_numbered_by_id(m.db));
}

TEST_CASE("scan_events gives each kernel and copy its call's thread, and applies the range",
          "[report][event_pass]") {
  EventDb m;
  m.call(2, 2, 7, 200);
  m.call(3, 1, 8, 100);
  m.call(5, 3, 9, 300);
  for (int64_t id : {1, 3, 6}) m.kernel(id);  // 1 and 6: their calls were not recorded
  for (int64_t id : {2, 4, 5}) m.copy(id);
  Seen all;
  scan_events(m.db, RowFilter{}, {&all});
  CHECK(all.rows == std::vector<std::string>{"kernel 1 thread -", "copy 2 thread 7", "api 2",
                                             "kernel 3 thread 8", "api 3", "copy 4 thread -",
                                             "copy 5 thread 9", "api 5", "kernel 6 thread -"});
  // Sequences 1..2: calls 3 and 2, and the work they enqueued; work without a call is out of every
  // range.
  Seen ranged;
  scan_events(m.db, RowFilter{std::pair<int64_t, int64_t>{1, 2}}, {&ranged});
  CHECK(ranged.rows ==
        std::vector<std::string>{"copy 2 thread 7", "api 2", "kernel 3 thread 8", "api 3"});
}
