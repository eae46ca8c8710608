// Databases the report must refuse with one clear line naming the file, leaving no output.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "report/report.hpp"
#include "report_test_support.hpp"

using namespace prof::report;
using prof::report::test::TempDir;

namespace {

ReportOptions options_for(const TempDir& out) {
  ReportOptions options;
  options.output_dir = out.path;
  options.base_name = "result_1";
  return options;
}

// Runs the report on `db_path`, expects a ReportError whose message names the file and holds
// `why`, and checks that the output directory is still empty.
void expect_refused(const std::string& db_path, const std::string& why) {
  TempDir out;
  try {
    write_reports(db_path, options_for(out), nullptr);
    FAIL("write_reports accepted " << db_path);
  } catch (const ReportError& e) {
    std::string message = e.what();
    CHECK_THAT(message, Catch::Contains(db_path) && Catch::Contains(why));
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(out.list().empty());
}

}  // namespace

TEST_CASE("a missing db is refused", "[report][bad-input]") {
  TempDir dir;
  expect_refused(dir.file("missing.db"), "cannot open");
}

TEST_CASE("a file that is not SQLite is refused", "[report][bad-input]") {
  TempDir dir;
  prof::report::test::write_text(dir.file("text.db"),
                                 "this is not a database, just some text long enough\n");
  expect_refused(dir.file("text.db"), "not a SQLite file");
  prof::report::test::write_text(dir.file("empty.db"), "");
  expect_refused(dir.file("empty.db"), "not a SQLite file");
}

TEST_CASE("a SQLite db that is not prof's is refused", "[report][bad-input]") {
  TempDir dir;
  {
    prof::Database db(dir.file("foreign.db"), prof::Database::Mode::kCreate);
    db.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');");
  }
  expect_refused(dir.file("foreign.db"), "no meta table");
  {
    prof::Database db(dir.file("nometa.db"), prof::Database::Mode::kCreate);
    db.exec(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES "
        "('a', 'b');");
  }
  expect_refused(dir.file("nometa.db"), "no schema_version");
}

TEST_CASE("a db written by a newer prof is refused", "[report][bad-input]") {
  TempDir dir;
  prof::report::test::build_fixture_db(dir.file("newer.db"), "empty.sql");
  {
    prof::Database db(dir.file("newer.db"), prof::Database::Mode::kReadWrite);
    db.exec("UPDATE meta SET value = '999' WHERE key = 'schema_version'");
  }
  expect_refused(dir.file("newer.db"), "written by a newer prof");
}

TEST_CASE("a prof db missing a table is refused", "[report][bad-input]") {
  TempDir dir;
  prof::report::test::build_fixture_db(dir.file("partial.db"), "empty.sql");
  {
    prof::Database db(dir.file("partial.db"), prof::Database::Mode::kReadWrite);
    db.exec("DROP TABLE kernels");
  }
  expect_refused(dir.file("partial.db"), "no table kernels");
}

TEST_CASE("a truncated db is refused and leaves no output", "[report][bad-input]") {
  TempDir dir;
  std::string db_path = dir.file("truncated.db");
  prof::report::test::build_fixture_db(db_path, "basic.sql");
  {
    // Enough rows that the tables span many pages, so a cut lands inside table data.
    prof::Database db(db_path, prof::Database::Mode::kReadWrite);
    db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
        " INSERT INTO api_calls SELECT i, i, 3, 5001, 1000000000 + i * 10, 1000000000 + i * 10 + "
        "5, 0, 1, 0, 0, 0"
        " FROM n;");
  }
  struct stat st;
  REQUIRE(::stat(db_path.c_str(), &st) == 0);
  REQUIRE(::truncate(db_path.c_str(), st.st_size / 2) == 0);
  expect_refused(db_path, "corrupt or truncated");
}

TEST_CASE("a db with garbage pages is refused", "[report][bad-input]") {
  TempDir dir;
  std::string db_path = dir.file("garbage.db");
  prof::report::test::build_fixture_db(db_path, "basic.sql");
  std::string bytes = prof::report::test::read_text(db_path);
  REQUIRE(bytes.size() > 8192);
  // Keep the header page, overwrite the rest: sqlite_master is readable, every table page is not.
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  prof::report::test::write_text(db_path, bytes);
  expect_refused(db_path, "corrupt or truncated");
}
