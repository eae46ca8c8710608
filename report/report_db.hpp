// Opening a prof database for reading, and the checks that turn "this is not something prof can
// read" into one clear line before any output file exists.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/report_error.hpp"

namespace prof::report {

// Opens `path` read-only and checks that it is a prof database this prof can read: a SQLite
// file, with a meta table whose schema_version is a number no newer than
// prof::schema::kSchemaVersion, and the tables the report reads. Throws ReportError otherwise.
std::unique_ptr<Database> open_report_db(const std::string& path);

// A second read-only connection to `db`'s file that presents it as open_report_db does (an older
// schema as the current one), in a read transaction of its own: the report reads two tables at
// once on two threads (report/event_pass.hpp). nullptr for a db without a file (":memory:") or
// one that cannot be opened again; the caller then reads everything on `db`.
std::unique_ptr<Database> second_connection(Database& db);

// A DbError (which already names the file and carries sqlite3_errmsg) as the report's error,
// saying "corrupt or truncated" when SQLite found the file damaged.
ReportError as_report_error(const DbError& error);

// The meta table, ordered by key.
std::vector<std::pair<std::string, std::string>> read_meta(Database& db);
std::optional<std::string> meta_value(Database& db, const std::string& key);

// An integer column that may be NULL. NULL reads as 0, so only a 0 costs the type check: one
// SQLite call per column, not two, for most rows (each call takes the connection's mutex).
inline std::optional<int64_t> column_nullable(const Statement& st, int column) {
  const int64_t value = st.column_int(column);
  if (value == 0 && st.column_is_null(column)) return std::nullopt;
  return value;
}

// Schema 5 on (db/schema.hpp), a db without the api_calls_sequence index: every numbered
// call's sequence is its correlation_id, so call order is api_calls' rowid order. Not for a merged
// db (it has its own index).
bool calls_numbered_by_id(Database& db);

// The first and last number --index-range selects calls by (sequence, or correlation_id when the
// calls are numbered by id) of a single process's db; nullopt when it holds no numbered call.
std::optional<std::pair<int64_t, int64_t>> call_numbers(Database& db);

// Adds the db's lost-event counts (its drops table) to `drops`, by cause: a merged report sums its
// processes'.
void add_drops(Database& db, std::map<std::string, int64_t>& drops);

// Which rows a report covers. With a range, only the API calls whose sequence is in [first, last]
// and the kernels and copies those calls enqueued (same correlation_id).
struct RowFilter {
  std::optional<std::pair<int64_t, int64_t>> sequence_range;
  // The db's calls are numbered by id (calls_numbered_by_id): a range is a rowid range.
  bool calls_numbered_by_id = false;

  // SQL conditions to AND into a WHERE clause; `alias` is the table alias. They use ?1 and ?2,
  // which bind() fills in (literal SQL, never built from data).
  std::string api_condition(const char* alias) const;
  std::string activity_condition(const char* alias) const;  // for kernels and copies
  void bind(Statement& st) const;
};

}  // namespace prof::report
