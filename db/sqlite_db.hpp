// Thin RAII over SQLite: every call is checked in one place, and a failure becomes one
// DbError whose message names the file and carries sqlite3_errmsg. All SQL uses bound parameters.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace prof {

class DbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement;

// Installs, once per process, the open(2) that every SQLite connection then uses: O_NOFOLLOW,
// O_NONBLOCK and regular files only (sqlite_db.cpp says why). Database's constructor calls it;
// false if SQLite's VFS would not take it.
bool sqlite_opens_guarded();
// The longest path SQLite's unix VFS opens (mxPathname, 512): a longer database path fails only
// when SQLite opens it, so callers check their directories before anything runs.
int sqlite_max_path_chars();

class Database {
 public:
  enum class Mode { kReadOnly, kReadWrite, kCreate };
  Database(const std::string& path, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);  // statements without parameters or results
  // exec(), except that a lock another connection holds (SQLITE_BUSY, once the busy timeout has
  // passed) returns false instead of throwing; a COMMIT that returns false leaves its transaction
  // open.
  bool exec_unless_busy(std::string_view sql);
  Statement prepare(std::string_view sql);
  bool table_exists(std::string_view name);
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }
  [[noreturn]] void fail(std::string_view what) const;  // throws DbError with errmsg

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
    other.stmt_ = nullptr;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, uint64_t value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, unsigned value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);
  bool step();  // true while a row is available
  void run();   // step to completion, then reset
  void reset();

  int64_t column_int(int index) const { return sqlite3_column_int64(stmt_, index); }
  double column_double(int index) const { return sqlite3_column_double(stmt_, index); }
  bool column_is_null(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }
  std::string_view column_text(int index) const;

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace prof
