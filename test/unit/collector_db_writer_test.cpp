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

namespace {

namespace fs = std::filesystem;
using prof::collector::DbWriter;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "prof-dbw-test-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~TempDir() { fs::remove_all(path); }
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
