// Test driver for the report: builds a prof database from a fixture SQL file (after the schema of
// db/schema.hpp), then runs write_reports on it exactly as the cli would.
//
//   report_fixture_tool FIXTURE.sql OUT_DIR [--base NAME] [--group-stream] [--range FIRST LAST]
//
// The db is OUT_DIR/fixture.db; the reports go to OUT_DIR, the summary to stdout. A ReportError
// prints its one line on stderr and exits 3.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/report.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: report_fixture_tool FIXTURE.sql OUT_DIR [--base NAME] [--group-stream] "
               "[--range FIRST LAST]\n");
  return 2;
}

void build_db(const std::string& fixture, const std::string& db_path) {
  std::ifstream in(fixture);
  if (!in) throw std::runtime_error(fixture + ": cannot read");
  std::stringstream sql;
  sql << in.rdbuf();
  std::remove(db_path.c_str());
  prof::Database db(db_path, prof::Database::Mode::kCreate);
  db.exec(prof::schema::kCreateSql);
  db.exec(prof::schema::kCopyDirectionsSql);
  db.exec(sql.str());
  // The fixtures are of schemas before 5, whose finished dbs all had the sequence index.
  db.exec(prof::schema::kSequenceIndexSql);
  db.exec(prof::schema::kIndexSql);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  std::string fixture = argv[1];
  prof::report::ReportOptions options;
  options.output_dir = argv[2];
  options.base_name = "result";
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--base" && i + 1 < argc) {
      options.base_name = argv[++i];
    } else if (arg == "--group-stream") {
      options.group_stream = true;
    } else if (arg == "--range" && i + 2 < argc) {
      options.index_range =
          std::pair<int64_t, int64_t>{std::atoll(argv[i + 1]), std::atoll(argv[i + 2])};
      i += 2;
    } else {
      return usage();
    }
  }
  std::string db_path = options.output_dir + "/fixture.db";
  try {
    build_db(fixture, db_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot build the fixture db: %s\n", e.what());
    return 1;
  }
  try {
    prof::report::write_reports(db_path, options, stdout);
  } catch (const prof::report::ReportError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}
