// Helpers for the report's Catch integration tests: a temp directory, fixture databases, the
// report options over the basic fixture, and a writer's FILE* output read back.
#pragma once
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"
#include "report/report.hpp"

namespace prof::report::test {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/prof_report_it_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path.c_str())) {
      while (dirent* entry = ::readdir(dir))
        if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
          names.push_back(entry->d_name);
      ::closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A prof db at `db_path` holding fixtures/<fixture>.
inline void build_fixture_db(const std::string& db_path, const std::string& fixture) {
  Database db(db_path, Database::Mode::kCreate);
  db.exec(schema::kCreateSql);
  db.exec(schema::kCopyDirectionsSql);
  db.exec(read_text(std::string(PROF_REPORT_FIXTURES) + "/" + fixture));
}

// The basic fixture's db, and report options writing <base_name>.* into a directory of their own.
struct BasicReport {
  TempDir dir;
  TempDir out;
  std::string db_path = dir.file("basic.db");
  ReportOptions options;
  explicit BasicReport(const std::string& base_name) {
    build_fixture_db(db_path, "basic.sql");
    options.output_dir = out.path;
    options.base_name = base_name;
  }
};

// What `write` printed to the FILE* it was given (a summary writer's output), read back; empty
// when no temporary file could be made (the caller's checks then fail on the empty text).
inline std::string captured_output(const std::function<void(std::FILE*)>& write) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::tmpfile(), &std::fclose);
  if (!file) return "";
  write(file.get());
  std::rewind(file.get());
  std::string text;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) text.append(buffer, n);
  return text;
}

}  // namespace prof::report::test
