// report/host_memory.hpp on small dbs: which copies of host memory were of pinned memory at their
// call's time (pinned allocations and registered ranges, their ends and their frees).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/host_memory.hpp"
#include "runtimes/runtimes.hpp"

using namespace prof::report;
using prof::ApiId;
using prof::Database;

namespace {

constexpr int64_t kH2D = 1, kD2H = 2;

struct HostDb {
  Database db{":memory:", Database::Mode::kCreate};
  int64_t next_id = 1;
  HostDb() {
    db.exec(prof::schema::kCreateSql);
    for (ApiId id : {ApiId::hipHostMalloc, ApiId::hipHostFree, ApiId::hipHostRegister,
                     ApiId::hipHostUnregister, ApiId::hipMemcpyAsync, ApiId::hipMalloc}) {
      db.prepare("INSERT INTO api_names (api_id, name) VALUES (?1, ?2)")
          .bind(1, static_cast<int64_t>(id))
          .bind(2, prof::kApis[prof::api_slot(id)].name)
          .run();
    }
  }
  int64_t call(ApiId api, int64_t begin_ns, int64_t bytes, int64_t aux, int64_t result = 0) {
    const int64_t id = next_id++;
    db.prepare("INSERT INTO api_calls VALUES (?1, ?1, ?2, 1, ?3, ?3 + 10, ?4, NULL, 0, ?5, ?6)")
        .bind(1, id)
        .bind(2, static_cast<int64_t>(api))
        .bind(3, begin_ns)
        .bind(4, result)
        .bind(5, bytes)
        .bind(6, aux)
        .run();
    return id;
  }
  // An async copy whose host side is [host, host + bytes).
  int64_t copy(int64_t begin_ns, int64_t direction, int64_t host, int64_t bytes) {
    const int64_t id = call(ApiId::hipMemcpyAsync, begin_ns, bytes, direction);
    db.prepare("INSERT INTO api_args VALUES (?1, 'host_ptr', ?2)").bind(1, id).bind(2, host).run();
    return id;
  }
  std::vector<bool> pinned() {
    std::vector<bool> out;
    for (const HostCopy& c : read_host_copies(db)) out.push_back(c.pinned);
    return out;
  }
};

}  // namespace

TEST_CASE("host memory: a copy inside a live pinned allocation is pinned, past its end is not") {
  HostDb h;
  h.call(ApiId::hipHostMalloc, 100, 4096, 0x10000);
  h.copy(200, kH2D, 0x10000, 4096);  // the whole allocation
  h.copy(300, kD2H, 0x10800, 1024);  // inside it
  h.copy(400, kH2D, 0x10800, 4096);  // runs past its end
  h.copy(500, kH2D, 0x20000, 64);    // elsewhere
  CHECK(h.pinned() == std::vector<bool>{true, true, false, false});
}

TEST_CASE("host memory: pinned only between the allocation's return and the free's begin") {
  HostDb h;
  h.copy(100, kH2D, 0x10000, 64);  // before the allocation
  h.call(ApiId::hipHostMalloc, 200, 4096, 0x10000);
  h.copy(205, kH2D, 0x10000, 64);  // while the allocation is still in its call (ends at 210)
  h.copy(300, kH2D, 0x10000, 64);
  h.call(ApiId::hipHostFree, 400, 0, 0x10000);
  h.copy(500, kH2D, 0x10000, 64);
  CHECK(h.pinned() == std::vector<bool>{false, false, true, false});
}

TEST_CASE("host memory: a registered range is pinned until it is unregistered") {
  HostDb h;
  h.call(ApiId::hipHostRegister, 100, 8192, 0x40000);
  h.copy(200, kH2D, 0x41000, 4096);
  // A free of the registered start is not an unregister: the range stays.
  h.call(ApiId::hipHostFree, 250, 0, 0x40000);
  h.copy(300, kD2H, 0x40000, 8192);
  h.call(ApiId::hipHostUnregister, 400, 0, 0x40000);
  h.copy(500, kD2H, 0x40000, 8192);
  CHECK(h.pinned() == std::vector<bool>{true, true, false});
}

TEST_CASE("host memory: failed calls pin nothing and failed copies are not listed") {
  HostDb h;
  h.call(ApiId::hipHostMalloc, 100, 4096, 0x10000, 2);  // failed: its aux means nothing
  h.call(ApiId::hipMalloc, 150, 4096, 0x30000);         // device memory is not pinned host memory
  h.copy(200, kH2D, 0x10000, 64);
  h.copy(300, kH2D, 0x30000, 64);
  const int64_t failed = h.call(ApiId::hipMemcpyAsync, 400, 64, kH2D, 1);
  h.db.prepare("INSERT INTO api_args VALUES (?1, 'host_ptr', 4096)").bind(1, failed).run();
  const std::vector<HostCopy> copies = read_host_copies(h.db);
  REQUIRE(copies.size() == 2);
  CHECK_FALSE(copies[0].pinned);
  CHECK_FALSE(copies[1].pinned);
  CHECK(copies[0].host_ptr == 0x10000u);
  CHECK(copies[0].direction == kH2D);
  CHECK(copies[0].bytes == 64);
  CHECK(copies[0].begin_ns == 200);
  CHECK(copies[0].sequence == copies[0].correlation_id);
  CHECK_FALSE(copies[0].device_begin_ns.has_value());
}

TEST_CASE("host memory: a db without api_args has no host copies") {
  Database db{":memory:", Database::Mode::kCreate};
  db.exec("CREATE TABLE api_calls (correlation_id INTEGER PRIMARY KEY)");
  CHECK(read_host_copies(db).empty());
}
