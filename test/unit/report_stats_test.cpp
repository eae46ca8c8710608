#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/stats.hpp"
#include "report/stats_csv.hpp"
#include "report/stats_quantiles.hpp"

using namespace prof::report;
using prof::Database;

namespace {

struct MemoryDb {
  Database db{":memory:", Database::Mode::kCreate};
  MemoryDb() {
    db.exec(prof::schema::kCreateSql);
    db.exec(prof::schema::kCopyDirectionsSql);
    db.exec(
        "INSERT INTO api_names (api_id, name) VALUES (1, 'hipMemcpy'), (2, 'hipLaunchKernel'), (3, "
        "'hipFree')");
  }
  void call(int64_t correlation_id, int api_id, int64_t begin_ns, int64_t end_ns) {
    auto st = db.prepare("INSERT INTO api_calls VALUES (?1, ?1, ?2, 7, ?3, ?4, 0, 0, 0, 0, 0)");
    st.bind(1, correlation_id).bind(2, api_id).bind(3, begin_ns).bind(4, end_ns);
    st.run();
  }
};

}  // namespace

TEST_CASE("API stats: count, total, min, max, population std dev, order", "[report][stats]") {
  MemoryDb m;
  // hipMemcpy: 10, 20, 30, 40 -> total 100, mean 25, population variance 125.
  m.call(1, 1, 0, 10);
  m.call(2, 1, 100, 120);
  m.call(3, 1, 200, 230);
  m.call(4, 1, 300, 340);
  m.call(5, 2, 400, 500);  // hipLaunchKernel: 100, the same total as hipMemcpy: ties sort by name
  m.call(6, 3, 600, 601);
  StatsTable table = query_api_stats(m.db, RowFilter{}, 0, true);
  REQUIRE(table.rows.size() == 3);
  CHECK(table.total_ns == 201);
  CHECK(table.calls == 6);
  CHECK(table.rows[0].name == "hipLaunchKernel");
  const NameStats& memcpy_row = table.rows[1];
  CHECK(memcpy_row.name == "hipMemcpy");
  CHECK(memcpy_row.calls == 4);
  CHECK(memcpy_row.total_ns == 100);
  CHECK(memcpy_row.min_ns == 10);
  CHECK(memcpy_row.max_ns == 40);
  CHECK(memcpy_row.average_ns() == 25);
  CHECK(memcpy_row.squared_deviation == Approx(500.0));
  CHECK(memcpy_row.stddev_ns() == 11);  // sqrt(125) = 11.18
  CHECK(table.rows[2].stddev_ns() == 0);

  CHECK(memcpy_row.median_ns == 20);  // nearest rank: the 2nd of 4
  CHECK(memcpy_row.p95_ns == 40);     // the 4th of 4

  StringSink sink;
  write_stats_csv(table, sink);
  CHECK(sink.text() ==
        "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDevNs,MedianNs,P95Ns\n"
        "hipLaunchKernel,1,100,100,49.75,100,100,0,100,100\n"
        "hipMemcpy,4,100,25,49.75,10,40,11,20,40\n"
        "hipFree,1,1,1,0.50,1,1,0,1,1\n");
}

TEST_CASE("API stats honour the sequence range", "[report][stats]") {
  MemoryDb m;
  m.call(1, 1, 0, 10);
  m.call(2, 1, 100, 120);
  m.call(3, 3, 200, 230);
  StatsTable table = query_api_stats(m.db, RowFilter{std::pair<int64_t, int64_t>{2, 3}}, 0, true);
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0].name == "hipFree");
  CHECK(table.rows[1].calls == 1);
  CHECK(table.rows[1].total_ns == 20);
}

TEST_CASE("std dev stays exact for long, steady durations", "[report][stats]") {
  MemoryDb m;
  // Durations around 10 s that differ by 1 ns: sum(x^2) - n*mean^2 in doubles would give noise.
  for (int i = 0; i < 1000; ++i) m.call(i + 1, 1, 0, 10'000'000'000 + (i % 2));
  StatsTable table = query_api_stats(m.db, RowFilter{}, 0, true);
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0].squared_deviation == Approx(250.0));
  CHECK(table.rows[0].stddev_ns() == 1);  // 0.5 rounds half away from zero
}

TEST_CASE("kernel stats count untimed launches in Calls only and demangle names",
          "[report][stats]") {
  MemoryDb m;
  m.db.exec(
      "INSERT INTO strings VALUES (1, '_Z6vecAddPfS_S_i'), (2, 'vecAdd(float*, float*, float*, "
      "int)'),"
      " (3, 'never_timed');"
      "INSERT INTO kernels VALUES (10, 1, 4096, 0, 0, 1,1,1, 64,1,1, 0, 100, 150),"
      " (11, 1, 4096, 0, 0, 1,1,1, 64,1,1, 0, NULL, NULL),"
      " (12, 2, 4096, 0, 0, 1,1,1, 64,1,1, 0, 200, 270),"
      " (13, 3, 8192, 0, 0, 1,1,1, 64,1,1, 0, NULL, NULL),"
      " (14, NULL, 255, 0, 0, 1,1,1, 64,1,1, 0, 300, 310),"
      " (15, NULL, 255, 0, 0, 1,1,1, 64,1,1, 0, 400, 420);");
  StatsTable table = query_kernel_stats(m.db, RowFilter{});
  REQUIRE(table.rows.size() == 3);
  const NameStats& vec_add = table.rows[0];
  CHECK(vec_add.name ==
        "vecAdd(float*, float*, float*, int)");  // mangled and stored-demangled merge
  CHECK(vec_add.calls == 3);
  CHECK(vec_add.timed_calls == 2);
  CHECK(vec_add.total_ns == 120);
  CHECK(vec_add.min_ns == 50);
  CHECK(vec_add.max_ns == 70);
  CHECK(vec_add.average_ns() == 60);
  CHECK(vec_add.stddev_ns() == 10);
  const NameStats& unresolved = table.rows[1];
  CHECK(unresolved.name == "unknown kernel at 0xff");
  CHECK(unresolved.calls == 2);
  CHECK(unresolved.total_ns == 30);
  const NameStats& untimed = table.rows[2];
  CHECK(untimed.calls == 1);
  CHECK(untimed.total_ns == 0);
  CHECK(untimed.average_ns() == 0);
  CHECK(untimed.min_ns == 0);
}

TEST_CASE("make_stats_table sorts by total, then name", "[report][stats]") {
  std::vector<NameStats> rows(3);
  rows[0].name = "b";
  rows[0].total_ns = 5;
  rows[1].name = "a";
  rows[1].total_ns = 5;
  rows[2].name = "c";
  rows[2].total_ns = 9;
  StatsTable table = make_stats_table(rows);
  CHECK(table.rows[0].name == "c");
  CHECK(table.rows[1].name == "a");
  CHECK(table.rows[2].name == "b");
  CHECK(table.total_ns == 19);
}

namespace {

NameStats named(const std::string& name, int64_t total_ns) {
  NameStats row;
  row.name = name;
  row.calls = row.timed_calls = 1;
  row.total_ns = total_ns;
  return row;
}

ProfileEntry entry(const char* kind, const char* runtime, const char* name, int64_t median_ns,
                   int64_t p95_ns) {
  ProfileEntry e;
  e.kind = kind;
  e.runtime = runtime;
  e.name = name;
  e.median_ns = median_ns;
  e.p95_ns = p95_ns;
  return e;
}

}  // namespace

TEST_CASE("the profile's entries fill the rows of their own table by name", "[report][stats]") {
  StatsTable hip =
      make_stats_table({named("hipMemcpy", 30), named("hipFree", 20), named("unknown API 9", 1)});
  StatsTable musa = make_stats_table({named("musaMemcpy", 10)});
  StatsTable kernels = make_stats_table({named("k", 5)});
  std::vector<CopyStats> copies{CopyStats{"H2D"}, CopyStats{"Memset"}};
  StatsQuantiles quantiles({{"hip", &hip}, {"musa", &musa}}, &kernels, &copies);
  quantiles(entry("api", "hip", "hipFree", 7, 9));
  quantiles(entry("api", "musa", "musaMemcpy", 3, 4));
  quantiles(entry("api", "musa", "hipMemcpy", 1, 1));    // not musa's: hip's row keeps 0
  quantiles(entry("api", "", "unknown API 9", 11, 12));  // no runtime: the first table's
  quantiles(entry("kernel", "", "k", 5, 6));
  quantiles(entry("kernel", "", "not a row", 1, 1));
  quantiles(entry("copy", "", "Memset", 2, 8));
  CHECK(hip.rows[0].name == "hipMemcpy");
  CHECK(hip.rows[0].median_ns == 0);
  CHECK((hip.rows[1].median_ns == 7 && hip.rows[1].p95_ns == 9));
  CHECK((hip.rows[2].median_ns == 11 && hip.rows[2].p95_ns == 12));
  CHECK((musa.rows[0].median_ns == 3 && musa.rows[0].p95_ns == 4));
  CHECK((kernels.rows[0].median_ns == 5 && kernels.rows[0].p95_ns == 6));
  CHECK((copies[0].median_ns == 0 && copies[1].median_ns == 2 && copies[1].p95_ns == 8));
}

TEST_CASE("a merged row's median and p95 are not made up from its parts'", "[report][stats]") {
  NameStats a = named("k", 10), b = named("k", 30);
  a.median_ns = a.p95_ns = 10;
  b.median_ns = b.p95_ns = 30;
  StatsTable one = make_stats_table({a}), two = make_stats_table({b});
  StatsTable merged = merge_stats_tables({one, two});
  REQUIRE(merged.rows.size() == 1);
  CHECK(merged.rows[0].calls == 2);
  // 0 until StatsQuantiles fills it from all the durations (report/stats_quantiles.hpp).
  CHECK(merged.rows[0].median_ns == 0);
  CHECK(merged.rows[0].p95_ns == 0);
}
