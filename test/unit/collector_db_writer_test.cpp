// DbWriter's file rules: it creates its database without following symlinks and never replaces a
// file that is not a prof database; a failed creation leaves nothing behind.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "collector/db_writer.hpp"
#include "common/record.hpp"
#include "db/sqlite_db.hpp"
#include "runtimes/api_id.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using prof::collector::DbWriter;

// Each test's directories are named after this file's tests.
struct TempDir : prof::test::TempDir {
  TempDir() : prof::test::TempDir("prof-dbw-test") {}
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a file that is not a prof database is never replaced", "[collector]") {
  TempDir dir;
  const fs::path db = dir.path / "hip-prof-1.db";
  std::ofstream(db) << "somebody's notes\n";
  CHECK_THROWS_AS(DbWriter(db.string(), 1, "test", prof::RuntimeId::kHip), prof::DbError);
  CHECK(read_all(db) == "somebody's notes\n");
}

TEST_CASE("a symlink where the database goes is refused, its target untouched", "[collector]") {
  TempDir dir;
  const fs::path target = dir.path / "target";
  std::ofstream(target) << "keep\n";
  const fs::path db = dir.path / "hip-prof-2.db";
  fs::create_symlink(target, db);
  CHECK_THROWS_AS(DbWriter(db.string(), 2, "test", prof::RuntimeId::kHip), prof::DbError);
  CHECK(fs::is_symlink(db));
  CHECK(read_all(target) == "keep\n");
}

TEST_CASE("a prof database from an earlier run is replaced", "[collector]") {
  TempDir dir;
  const fs::path db = dir.path / "hip-prof-3.db";
  { DbWriter first(db.string(), 3, "test", prof::RuntimeId::kHip); }
  DbWriter second(db.string(), 3, "test", prof::RuntimeId::kHip);
  CHECK(fs::exists(db));
}

TEST_CASE("a database that cannot be created leaves no file", "[collector]") {
  TempDir dir;
  const fs::path db = dir.path / "missing-dir" / "hip-prof-4.db";
  CHECK_THROWS_AS(DbWriter(db.string(), 4, "test", prof::RuntimeId::kHip), prof::DbError);
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("the database is created with the user's umask", "[collector]") {
  TempDir dir;
  const fs::path db = dir.path / "hip-prof-5.db";
  mode_t old = umask(077);
  { DbWriter writer(db.string(), 5, "test", prof::RuntimeId::kHip); }
  umask(old);
  struct stat st;
  REQUIRE(stat(db.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

// Somebody reads the db of a program still running (sqlite3, prof --db): the builder's commit
// cannot take its lock meanwhile. The batch stays open and goes in with the next commit; nothing
// is lost and nothing fails.
TEST_CASE("a commit held off by a reader stays open and goes in later", "[collector]") {
  TempDir dir;
  const fs::path path = dir.path / "hip-prof-5.db";
  DbWriter writer(path.string(), 5, "test", prof::RuntimeId::kHip);
  auto call = [](uint64_t n) {
    prof::ApiRecord r{};
    r.type = static_cast<uint8_t>(prof::RecordType::kApi);
    r.api_id = static_cast<uint16_t>(prof::ApiId::hipStreamQuery);
    r.correlation_id = n;
    r.begin_ns = 1000 * n;
    r.end_ns = 1000 * n + 10;
    return r;
  };
  auto rows = [&] {
    prof::Database db(path.string(), prof::Database::Mode::kReadOnly);
    prof::Statement st(db, "SELECT COUNT(*) FROM api_calls");
    REQUIRE(st.step());
    return st.column_int(0);
  };
  {
    prof::Database reader(path.string(), prof::Database::Mode::kReadOnly);
    reader.exec("BEGIN");
    prof::Statement st(reader, "SELECT COUNT(*) FROM api_calls");
    REQUIRE(st.step());  // a shared lock, held until the read transaction ends
    writer.begin_batch();
    for (uint64_t n = 1; n <= 100; ++n) writer.on_api(call(n), 7, 0, nullptr);
    CHECK_FALSE(writer.end_batch());
    st.reset();
    reader.exec("COMMIT");
  }
  writer.begin_batch();
  for (uint64_t n = 101; n <= 150; ++n) writer.on_api(call(n), 7, 0, nullptr);
  CHECK(writer.end_batch());
  CHECK(rows() == 150);
}

namespace {

prof::ApiRecord api_record(prof::ApiId id, uint64_t hook_corr, uint64_t begin_ns,
                           uint8_t flags = 0) {
  prof::ApiRecord r{};
  r.type = static_cast<uint8_t>(prof::RecordType::kApi);
  r.flags = flags;
  r.api_id = static_cast<uint16_t>(id);
  r.correlation_id = hook_corr;
  r.begin_ns = begin_ns;
  r.end_ns = begin_ns + 10;
  return r;
}

prof::ActivityRecord activity_record(prof::Activity kind, uint64_t hook_corr, uint64_t begin_ns) {
  prof::ActivityRecord r{};
  r.type = static_cast<uint8_t>(prof::RecordType::kActivity);
  r.activity = static_cast<uint8_t>(kind);
  r.correlation_id = hook_corr;
  r.device_begin_ns = begin_ns;
  r.device_end_ns = begin_ns + 100;
  return r;
}

std::vector<std::vector<int64_t>> int_rows(const fs::path& path, const std::string& sql) {
  prof::Database db(path.string(), prof::Database::Mode::kReadOnly);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::vector<std::vector<int64_t>> rows;
  while (sqlite3_step(st) == SQLITE_ROW) {
    rows.emplace_back();
    for (int c = 0; c < sqlite3_column_count(st); ++c)
      rows.back().push_back(sqlite3_column_int64(st, c));
  }
  sqlite3_finalize(st);
  return rows;
}

using Rows = std::vector<std::vector<int64_t>>;
constexpr uint64_t kThread1 = uint64_t{1} << 40, kThread2 = uint64_t{2} << 40;  // the hook's ids

// The db of process `pid` in `dir`, once `feed` has written its records in one batch and
// finalize() has completed it.
fs::path finished_db(const TempDir& dir, int pid, const std::function<void(DbWriter&)>& feed) {
  const fs::path path = dir.path / ("hip-prof-" + std::to_string(pid) + ".db");
  DbWriter w(path.string(), pid, "test", prof::RuntimeId::kHip);
  w.begin_batch();
  feed(w);
  w.finalize("/nonexistent.maps", {}, 9000);
  return path;
}

}  // namespace

TEST_CASE(
    "calls in call order are numbered 1, 2, ... and their work and arguments follow the hook's ids",
    "[collector]") {
  TempDir dir;
  const fs::path path = finished_db(dir, 6, [](DbWriter& w) {
    // A launch whose device time comes after it; a copy whose device time came first (another
    // thread's ring was drained first); an MPI call whose arguments precede it on its thread, after
    // arguments of a call that was not recorded.
    w.on_api(api_record(prof::ApiId::hipLaunchKernel, kThread1 | 1, 1000, prof::kFlagDeviceTiming),
             11, 0, nullptr);
    w.on_activity(activity_record(prof::Activity::kCopy, kThread2 | 1, 5000), 0);
    w.on_api(api_record(prof::ApiId::hipMemcpyAsync, kThread2 | 1, 2000, prof::kFlagDeviceTiming),
             12, 0, nullptr);
    w.on_activity(activity_record(prof::Activity::kKernel, kThread1 | 1, 4000), 0);
    prof::ArgsRecord orphan{}, args{};
    orphan.type = args.type = static_cast<uint8_t>(prof::RecordType::kArgs);
    orphan.api_id = args.api_id = static_cast<uint16_t>(prof::ApiId::MPI_Send);
    orphan.count = args.count = 2;
    orphan.correlation_id = kThread1 | 2;
    orphan.values[0] = 9;
    args.correlation_id = kThread1 | 3;
    args.values[0] = 3;
    args.values[1] = 77;
    w.on_args(orphan, 11);
    w.on_args(args, 11);
    w.on_api(api_record(prof::ApiId::MPI_Send, kThread1 | 3, 3000), 11, 0, nullptr);
  });
  CHECK(int_rows(
            path,
            "SELECT correlation_id, sequence, thread_id, begin_ns FROM api_calls ORDER BY rowid") ==
        Rows{{1, 1, 11, 1000}, {2, 2, 12, 2000}, {3, 3, 11, 3000}});
  CHECK(int_rows(path, "SELECT correlation_id, device_begin_ns FROM kernels") == Rows{{1, 4000}});
  CHECK(int_rows(path, "SELECT correlation_id, device_begin_ns FROM copies") == Rows{{2, 5000}});
  CHECK(int_rows(path, "SELECT correlation_id, value FROM api_args ORDER BY value") ==
        Rows{{3, 3}, {3, 77}});
  // Call order is rowid order: no index to build.
  CHECK(int_rows(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'api_calls_sequence'") ==
        Rows{{0}});
  CHECK(int_rows(path, "SELECT count FROM drops WHERE count <> 0").empty());
}

TEST_CASE("a call that arrives out of call order is renumbered at the end, with the sequence index",
          "[collector]") {
  TempDir dir;
  const fs::path path = finished_db(dir, 7, [](DbWriter& w) {
    w.on_api(api_record(prof::ApiId::hipStreamQuery, kThread1 | 1, 1000), 11, 0, nullptr);
    w.on_api(api_record(prof::ApiId::hipStreamQuery, kThread1 | 2, 3000), 11, 0, nullptr);
    w.on_api(api_record(prof::ApiId::hipStreamQuery, kThread2 | 1, 2000), 12, 0, nullptr);  // late
  });
  CHECK(int_rows(path,
                 "SELECT correlation_id, sequence, begin_ns FROM api_calls ORDER BY sequence") ==
        Rows{{1, 1, 1000}, {3, 2, 2000}, {2, 3, 3000}});
  CHECK(int_rows(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'api_calls_sequence'") ==
        Rows{{1}});
}
