// Helpers for the report's Catch integration tests: a temp directory and fixture databases.
#pragma once
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"

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
        if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..") names.push_back(entry->d_name);
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

}  // namespace prof::report::test
