// DbWriter's file rules: it creates its database without following symlinks and never replaces a
// file that is not a prof database; a failed creation leaves nothing behind.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "collector/db_writer.hpp"
#include "collector/sqlite_db.hpp"
#include "common/record.hpp"
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
