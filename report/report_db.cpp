#include "report/report_db.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/regular_file.hpp"
#include "db/schema.hpp"
#include "report/report_error.hpp"
#include "report/runtime_labels.hpp"

namespace prof::report {

namespace {

// The first 16 bytes of every SQLite 3 database file.
constexpr char kSqliteMagic[] = "SQLite format 3";

void check_sqlite_header(const std::string& path) {
  // open_regular: a FIFO given as the db (or planted under its name) must not hang prof.
  const int fd = open_regular(path.c_str(), O_RDONLY);
  if (fd < 0) {
    const int error = errno;
    throw ReportError(path + ": cannot open the database: " +
                      (error == kNotRegularFile ? "not a regular file"
                       : error == ELOOP         ? "a symbolic link (prof does not read through one)"
                                                : std::strerror(error)));
  }
  char header[16] = {};
  const ssize_t n = ::read(fd, header, sizeof header);
  ::close(fd);
  if (n < static_cast<ssize_t>(sizeof header) ||
      std::memcmp(header, kSqliteMagic, sizeof header) != 0)
    throw ReportError(path + ": not a prof database (not a SQLite file)");
}

constexpr const char* kRequiredTables[] = {"api_names", "strings", "copy_directions",
                                           "threads",   "streams", "api_calls",
                                           "kernels",   "copies",  "drops"};

// SQLite probes <db>-journal on the first read. Another user can plant a FIFO or symlink there in
// a shared directory; SQLite's opens refuse it (db/sqlite_db.cpp), and this names it.
void check_journal(const std::string& path) {
  struct stat st;
  const std::string journal = path + "-journal";
  if (::lstat(journal.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw ReportError(path + ": refusing to read beside " + journal +
                      ", which is not a regular file (planted by another user?)");
}

// What the report computes from (durations, sizes) must be what prof writes: integers, and no
// interval that ends before it begins. A db from elsewhere (a colleague, a CI artifact) may hold a
// text '1.5e9' in begin_ns, which SQLite reads as a number and the report would turn into a
// duration of seconds. One scan per table, stopped by LIMIT at the first bad row; a missing
// column shows as a prepare that fails.
struct TableCheck {
  const char* table;
  const char* bad_row;  // SQL condition true for a row prof could not have written
  const char* problem;
};
constexpr TableCheck kTableChecks[] = {
    {"api_calls",
     "typeof(begin_ns) <> 'integer' OR typeof(end_ns) <> 'integer' OR typeof(bytes) <> 'integer' "
     "OR end_ns < begin_ns",
     "begin_ns, end_ns and bytes must be integers with end_ns >= begin_ns"},
    {"kernels",
     "typeof(device_begin_ns) NOT IN ('integer', 'null') OR typeof(device_end_ns) NOT IN "
     "('integer', 'null')"
     " OR device_end_ns < device_begin_ns",
     "device_begin_ns and device_end_ns must be integers (or NULL) with device_end_ns >= "
     "device_begin_ns"},
    {"copies",
     "typeof(device_begin_ns) NOT IN ('integer', 'null') OR typeof(device_end_ns) NOT IN "
     "('integer', 'null')"
     " OR device_end_ns < device_begin_ns OR typeof(bytes) <> 'integer'",
     "bytes, device_begin_ns and device_end_ns must be integers (times may be NULL) with "
     "device_end_ns >= "
     "device_begin_ns"},
    {"markers",
     "typeof(begin_ns) <> 'integer' OR typeof(end_ns) NOT IN ('integer', 'null') OR end_ns < "
     "begin_ns",
     "begin_ns and end_ns must be integers (end_ns may be NULL) with end_ns >= begin_ns"},
    {"capture_windows",
     "typeof(begin_ns) <> 'integer' OR typeof(end_ns) <> 'integer' OR end_ns < begin_ns",
     "begin_ns and end_ns must be integers with end_ns >= begin_ns"},
};

void check_rows(Database& db, const std::string& path) {
  for (const TableCheck& check : kTableChecks) {
    if (!db.table_exists(check.table)) continue;  // older schemas lack markers and capture_windows
    std::optional<Statement> bad;
    try {
      bad.emplace(
          db, std::string("SELECT 1 FROM ") + check.table + " WHERE " + check.bad_row + " LIMIT 1");
    } catch (const DbError&) {
      throw ReportError(path + ": not a valid prof database (table " + check.table + ": " +
                        sqlite3_errmsg(db.handle()) + ")");
    }
    if (bad->step())
      throw ReportError(path + ": not a valid prof database (table " + check.table + ": " +
                        check.problem + ")");
  }
}

}  // namespace

std::unique_ptr<Database> open_report_db(const std::string& path) {
  check_sqlite_header(path);
  check_journal(path);
  std::unique_ptr<Database> db;
  try {
    // A writer killed mid-transaction (prof SIGKILLed, a full disk) leaves a hot journal, which a
    // read-only connection cannot roll back: one read-write connection does (SQLite restores the
    // last committed state on its first read), then the file reads as any other.
    struct stat journal {};
    if (stat((path + "-journal").c_str(), &journal) == 0 && journal.st_size > 0) {
      try {
        Database rollback(path, Database::Mode::kReadWrite);
        rollback.table_exists("meta");
      } catch (const DbError& e) {
        throw ReportError(path + ": an interrupted write left " + path +
                          "-journal, which needs write access to be rolled back (" + e.what() +
                          ")");
      }
    }
    db = std::make_unique<Database>(path, Database::Mode::kReadOnly);
    if (!db->table_exists("meta"))
      throw ReportError(path + ": not a prof database (no meta table)");
    auto version_text = meta_value(*db, "schema_version");
    if (!version_text)
      throw ReportError(path + ": not a prof database (no schema_version in meta)");
    int64_t version = 0;
    if (std::sscanf(version_text->c_str(), "%lld", reinterpret_cast<long long*>(&version)) != 1 ||
        version < 1)
      throw ReportError(path + ": not a prof database (schema_version '" + *version_text +
                        "' is not a version)");
    if (version > schema::kSchemaVersion)
      throw ReportError(path + ": written by a newer prof (schema version " +
                        std::to_string(version) + "; this prof reads versions up to " +
                        std::to_string(schema::kSchemaVersion) + ")");
    for (const char* table : kRequiredTables)
      if (!db->table_exists(table))
        throw ReportError(path + ": not a complete prof database (no table " + table + ")");
    if (version < 2)
      present_as_current(*db, "main", "");
    else if (!db->table_exists("runtimes"))
      throw ReportError(path + ": not a complete prof database (no table runtimes)");
    check_rows(*db, path);
  } catch (const DbError& e) {
    throw as_report_error(e);
  }
  return db;
}

std::unique_ptr<Database> second_connection(Database& db) {
  const char* file = sqlite3_db_filename(db.handle(), "main");
  if (!file || !*file) return nullptr;
  try {
    auto second = std::make_unique<Database>(file, Database::Mode::kReadOnly);
    auto version_text = meta_value(*second, "schema_version");
    long long version = schema::kSchemaVersion;
    if (version_text && std::sscanf(version_text->c_str(), "%lld", &version) == 1 && version < 2)
      present_as_current(*second, "main", "");
    second->exec("BEGIN");
    second->table_exists("api_calls");  // the first read takes the snapshot
    return second;
  } catch (const DbError&) {
    return nullptr;
  }
}

ReportError as_report_error(const DbError& error) {
  std::string message = error.what();
  if (message.find("malformed") != std::string::npos ||
      message.find("not a database") != std::string::npos)
    message += " (the database is corrupt or truncated)";
  return ReportError(message);
}

std::vector<std::pair<std::string, std::string>> read_meta(Database& db) {
  std::vector<std::pair<std::string, std::string>> meta;
  Statement st = db.prepare("SELECT key, value FROM meta ORDER BY key");
  while (st.step())
    meta.emplace_back(std::string(st.column_text(0)), std::string(st.column_text(1)));
  return meta;
}

std::optional<std::string> meta_value(Database& db, const std::string& key) {
  Statement st = db.prepare("SELECT value FROM meta WHERE key = ?1");
  st.bind(1, std::string_view(key));
  if (!st.step()) return std::nullopt;
  return std::string(st.column_text(0));
}

bool calls_numbered_by_id(Database& db) {
  if (schema_version(db) < 5) return false;
  Statement index = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'api_calls_sequence'");
  return !index.step();
}

std::optional<std::pair<int64_t, int64_t>> call_numbers(Database& db) {
  const char* number = calls_numbered_by_id(db) ? "correlation_id" : "sequence";
  Statement span =
      db.prepare(std::string("SELECT MIN(") + number + "), MAX(" + number + ") FROM api_calls");
  if (!span.step() || span.column_is_null(0)) return std::nullopt;
  return std::pair<int64_t, int64_t>{span.column_int(0), span.column_int(1)};
}

std::string RowFilter::api_condition(const char* alias) const {
  if (!sequence_range) return "1";
  return std::string(alias) + (calls_numbered_by_id ? ".correlation_id" : ".sequence") +
         " BETWEEN ?1 AND ?2";
}

std::string RowFilter::activity_condition(const char* alias) const {
  if (!sequence_range) return "1";
  // A kernel or copy has its call's correlation_id.
  if (calls_numbered_by_id) return std::string(alias) + ".correlation_id BETWEEN ?1 AND ?2";
  return std::string(alias) +
         ".correlation_id IN (SELECT correlation_id FROM api_calls WHERE sequence BETWEEN ?1 AND "
         "?2)";
}

void RowFilter::bind(Statement& st) const {
  if (!sequence_range) return;
  st.bind(1, sequence_range->first);
  st.bind(2, sequence_range->second);
}

void add_drops(Database& db, std::map<std::string, int64_t>& drops) {
  Statement st = db.prepare("SELECT cause, count FROM drops WHERE count <> 0 ORDER BY cause");
  while (st.step()) drops[std::string(st.column_text(0))] += st.column_int(1);
}

}  // namespace prof::report
