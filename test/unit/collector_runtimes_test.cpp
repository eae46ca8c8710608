// What the database says about runtimes: the runtimes table holds each runtime the process called,
// with its description's labels; api_names gives each API its runtime; meta.runtime lists them;
// a runtime's aliases of the default stream become stream 0.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "collector/db_writer.hpp"
#include "db/sqlite_db.hpp"
#include "runtimes/api_id.hpp"

namespace {

namespace fs = std::filesystem;
using prof::ApiId;
using prof::RuntimeId;
using prof::collector::DbWriter;

struct TempDb {
  fs::path dir;
  TempDb() {
    std::string templ = (fs::temp_directory_path() / "prof-rt-test-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    dir = templ;
  }
  ~TempDb() { fs::remove_all(dir); }
  std::string path() const { return (dir / "x-prof-1.db").string(); }
};

prof::ApiRecord call(ApiId id, uint64_t correlation_id, uint64_t stream = 0) {
  prof::ApiRecord r{};
  r.type = static_cast<uint8_t>(prof::RecordType::kApi);
  r.api_id = static_cast<uint16_t>(id);
  r.correlation_id = correlation_id;
  r.begin_ns = 1000 * correlation_id;
  r.end_ns = r.begin_ns + 10;
  r.stream = stream;
  return r;
}

std::string text(prof::Database& db, const char* sql) {
  prof::Statement st = db.prepare(sql);
  return st.step() ? std::string(st.column_text(0)) : std::string("<no row>");
}

int64_t number(prof::Database& db, const char* sql) {
  prof::Statement st = db.prepare(sql);
  return st.step() ? st.column_int(0) : -1;
}

}  // namespace

TEST_CASE("a process that called one runtime has that runtime alone in its database",
          "[collector]") {
  TempDb tmp;
  {
    DbWriter writer(tmp.path(), 1, "test", RuntimeId::kMusa);
    writer.begin_batch();
    writer.on_api(call(ApiId::musaMalloc, 1), 7, 0, nullptr);
    writer.end_batch();
    writer.finalize("/nonexistent.maps", {}, 5000);
    CHECK(writer.runtimes_called() == 1);
  }
  prof::Database db(tmp.path(), prof::Database::Mode::kReadOnly);
  CHECK(text(db, "SELECT value FROM meta WHERE key = 'runtime'") == "musa");
  CHECK(text(db, "SELECT value FROM meta WHERE key = 'schema_version'") == "6");
  CHECK(number(db, "SELECT COUNT(*) FROM runtimes") == 1);
  CHECK(text(db,
             "SELECT api_title || '|' || stream_label || '|' || device_label || '|' || "
             "api_csv_stem FROM runtimes"
             " WHERE runtime_id = 1") == "MUSA API|Stream|Device|musatrace");
  CHECK(number(db, "SELECT runtime_id FROM api_names WHERE name = 'musaMalloc'") == 1);
  CHECK(number(db, "SELECT runtime_id FROM api_names WHERE name = 'hipMalloc'") == 0);
  CHECK(number(db, "SELECT api_id FROM api_names WHERE name = 'hipMalloc'") ==
        static_cast<int64_t>(ApiId::hipMalloc));
}

TEST_CASE("a process that called HIP and MUSA lists both, each with its own default stream",
          "[collector]") {
  TempDb tmp;
  {
    DbWriter writer(tmp.path(), 1, "test", RuntimeId::kHip);
    writer.begin_batch();
    writer.on_api(call(ApiId::hipStreamSynchronize, 1, 0), 7, 0, nullptr);     // HIP's null stream
    writer.on_api(call(ApiId::musaStreamSynchronize, 2, 0x1), 7, 0, nullptr);  // musaStreamLegacy
    writer.on_api(call(ApiId::musaStreamSynchronize, 3, 0), 7, 0, nullptr);    // MUSA's null stream
    writer.on_api(call(ApiId::musaStreamSynchronize, 4, 0x5000), 7, 0,
                  nullptr);  // a stream of its own
    writer.end_batch();
    writer.finalize("/nonexistent.maps", {}, 5000);
    CHECK(writer.runtimes_called() == 2);
  }
  prof::Database db(tmp.path(), prof::Database::Mode::kReadOnly);
  CHECK(text(db, "SELECT value FROM meta WHERE key = 'runtime'") == "hip,musa");
  CHECK(
      text(db,
           "SELECT group_concat(name, ',') FROM (SELECT name FROM runtimes ORDER BY runtime_id)") ==
      "hip,musa");
  CHECK(number(db, "SELECT stream_index FROM api_calls WHERE correlation_id = 1") == 0);
  const int64_t musa_default =
      number(db, "SELECT stream_index FROM api_calls WHERE correlation_id = 2");
  CHECK(musa_default > 0);
  CHECK(number(db, "SELECT stream_index FROM api_calls WHERE correlation_id = 3") == musa_default);
  CHECK(number(db,
               "SELECT device FROM streams WHERE stream_index = (SELECT stream_index FROM api_calls"
               " WHERE correlation_id = 3)") == -1);
  CHECK(
      number(
          db,
          "SELECT runtime_id FROM streams WHERE stream_index = (SELECT stream_index FROM api_calls"
          " WHERE correlation_id = 3)") == 1);
  const int64_t own = number(db, "SELECT stream_index FROM api_calls WHERE correlation_id = 4");
  CHECK(own > 0);
  CHECK(own != musa_default);
}

TEST_CASE("in a MUSA process the legacy default stream is stream 0", "[collector]") {
  TempDb tmp;
  {
    DbWriter writer(tmp.path(), 1, "test", RuntimeId::kMusa);
    writer.begin_batch();
    writer.on_api(call(ApiId::musaStreamSynchronize, 1, 0x1), 7, 0, nullptr);
    writer.end_batch();
    writer.finalize("/nonexistent.maps", {}, 5000);
  }
  prof::Database db(tmp.path(), prof::Database::Mode::kReadOnly);
  CHECK(number(db, "SELECT stream_index FROM api_calls WHERE correlation_id = 1") == 0);
  CHECK(number(db, "SELECT runtime_id FROM streams WHERE stream_index = 0") == 1);
}
