#include "collector/sqlite_db.hpp"

namespace prof {

Database::Database(const std::string& path, Mode mode) : path_(path) {
  // Before SQLite initializes: no memory statistics, which take a global mutex on every
  // allocation (prof never reads them).
  static const bool configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  (void)configured;
  // NOMUTEX: every connection is used by one thread at a time, so SQLite's own per-call locking
  // (a quarter of the collector's time when measured) buys nothing.
  int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case Mode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case Mode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = path + ": " + (db_ ? sqlite3_errmsg(db_) : "cannot open");
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError(msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(std::string_view what) const {
  throw DbError(path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

void Database::exec(std::string_view sql) {
  if (!exec_unless_busy(sql)) throw DbError(path_ + ": " + sqlite3_errmsg(db_));
}

bool Database::exec_unless_busy(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return true;
  std::string msg = path_ + ": " + (err ? err : sqlite3_errmsg(db_));
  sqlite3_free(err);
  if ((rc & 0xFF) == SQLITE_BUSY) return false;
  throw DbError(msg);
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

bool Database::table_exists(std::string_view name) {
  Statement st(*this, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

Statement::Statement(Database& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("step");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string_view Statement::column_text(int index) const {
  auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text ? std::string_view(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, index))) : std::string_view();
}

}  // namespace prof
