// libFuzzer: a well-formed prof database (the collector's schema) filled with fuzzed values:
// names with any bytes (quotes, commas, control characters, broken UTF-8), times in any order,
// unknown api ids and directions, huge and negative numbers. Every CSV/JSON writer and the
// summary run over it; malformed values must come out escaped or be refused, never crash.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "db/schema.hpp"
#include "fuzz_support.hpp"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ >= end_; }
  uint8_t byte() { return empty() ? 0 : *p_++; }
  int64_t number() {
    // Mostly small values (they collide, so rows relate), sometimes any 64-bit value.
    const uint8_t tag = byte();
    if (tag < 200) return tag;
    int64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  std::string text() {
    const size_t n = byte() % 48;
    std::string s;
    for (size_t i = 0; i < n && !empty(); ++i) s.push_back(static_cast<char>(byte()));
    return s;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void exec(sqlite3* db, const std::string& sql) {
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
}

void insert(sqlite3* db, const char* sql, Input& in, const char* kinds) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) std::abort();
  for (int i = 0; kinds[i]; ++i) {
    if (kinds[i] == 't') {
      std::string s = in.text();
      sqlite3_bind_text(st, i + 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    } else if (kinds[i] == 'n' && in.byte() % 16 == 0) {
      sqlite3_bind_null(st, i + 1);  // a nullable column left empty
    } else {
      sqlite3_bind_int64(st, i + 1, in.number());
    }
  }
  sqlite3_step(st);  // constraint failures are fine: the row is simply not there
  sqlite3_finalize(st);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = prof::fuzz::scratch_dir() + "/rows.db";
  unlink(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) std::abort();
  exec(db, "BEGIN");
  exec(db, std::string(prof::schema::kCreateSql));
  exec(db, std::string(prof::schema::kCopyDirectionsSql));
  exec(db, "INSERT INTO meta VALUES ('schema_version', '" +
               std::to_string(prof::schema::kSchemaVersion) +
               "'), ('runtime', 'hip'), ('pid', '1'), ('clock', 'CLOCK_MONOTONIC')");
  Input in(data, size);
  while (!in.empty()) {
    switch (in.byte() % 7) {
      case 0: insert(db, "INSERT INTO api_names (api_id, name) VALUES (?1, ?2)", in, "it"); break;
      case 1: insert(db, "INSERT INTO strings VALUES (?1, ?2)", in, "it"); break;
      case 2:
        insert(db, "INSERT INTO api_calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
               in, "iniiiiiniii");
        break;
      case 3:
        insert(db,
               "INSERT INTO kernels VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
               "?13, ?14)",
               in, "iniiiiiiiiiinn");
        break;
      case 4:
        insert(db, "INSERT INTO copies VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", in, "iiiiinn");
        break;
      case 5: insert(db, "INSERT INTO drops VALUES (?1, ?2)", in, "ti"); break;
      case 6: insert(db, "INSERT INTO meta VALUES (?1, ?2)", in, "tt"); break;
    }
  }
  exec(db, "COMMIT");
  sqlite3_close(db);
  prof::fuzz::run_report(path, size % 2 == 0);
  return 0;
}
