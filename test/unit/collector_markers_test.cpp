// DbWriter's markers and capture windows: ranges matched in the collector, whatever order the
// threads' rings are drained in; pops by level; ranges and windows left open end at the process
// end.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "collector/db_writer.hpp"
#include "db/sqlite_db.hpp"

namespace {

namespace fs = std::filesystem;
using prof::collector::DbWriter;

struct TempDb {
  fs::path dir;
  std::string path;
  TempDb() {
    std::string templ = (fs::temp_directory_path() / "prof-markers-test-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    dir = templ;
    path = (dir / "hip-prof-1.db").string();
  }
  ~TempDb() { fs::remove_all(dir); }
};

prof::MarkerRecord marker(prof::MarkerKind kind, prof::ApiId api, uint64_t time_ns, int64_t value) {
  prof::MarkerRecord r{};
  r.type = static_cast<uint8_t>(prof::RecordType::kMarker);
  r.kind = static_cast<uint8_t>(kind);
  r.api_id = static_cast<uint16_t>(api);
  r.time_ns = time_ns;
  r.value = value;
  return r;
}

int64_t number(prof::Database& db, const std::string& sql) {
  prof::Statement st(db, sql);
  REQUIRE(st.step());
  return st.column_is_null(0) ? -999 : st.column_int(0);
}

}  // namespace

TEST_CASE("a stop drained before its start still ends the range, on the stopping thread",
          "[collector]") {
  using prof::ApiId;
  using prof::MarkerKind;
  TempDb tmp;
  {
    DbWriter w(tmp.path, 1, "test", prof::RuntimeId::kHip);
    w.begin_batch();
    w.on_marker(marker(MarkerKind::kStop, ApiId::roctxRangeStop, 500, 7), "",
                22);  // thread 22's ring first
    w.on_marker(marker(MarkerKind::kStart, ApiId::roctxRangeStartA, 100, 7), "load", 11);
    w.on_marker(marker(MarkerKind::kPush, ApiId::roctxRangePushA, 110, 0), "outer", 11);
    w.on_marker(marker(MarkerKind::kPush, ApiId::roctxRangePushA, 120, 1), "inner", 11);
    w.on_marker(marker(MarkerKind::kPop, ApiId::roctxRangePop, 130, 1), "", 11);
    w.on_marker(marker(MarkerKind::kPop, ApiId::roctxRangePop, 140, 0), "", 11);
    w.on_marker(marker(MarkerKind::kPop, ApiId::roctxRangePop, 150, -1), "",
                11);  // nothing open: nothing
    w.on_marker(marker(MarkerKind::kPop, ApiId::roctxRangePop, 160, 3), "",
                11);  // its push unrecorded
    w.on_marker(marker(MarkerKind::kPush, ApiId::roctxRangePushA, 170, 0), "left open", 11);
    w.end_batch();
    w.set_process_end(900);
    w.finalize("/nonexistent.maps", {}, 1000);
  }
  prof::Database db(tmp.path, prof::Database::Mode::kReadOnly);
  CHECK(number(db, "SELECT end_ns FROM markers WHERE message = 'load'") == 500);
  CHECK(number(db, "SELECT end_thread_id FROM markers WHERE message = 'load'") == 22);
  CHECK(number(db, "SELECT end_ns FROM markers WHERE message = 'inner'") == 130);
  CHECK(number(db, "SELECT end_ns FROM markers WHERE message = 'outer'") == 140);
  CHECK(number(db, "SELECT level FROM markers WHERE message = 'inner'") == 1);
  CHECK(number(db, "SELECT end_ns FROM markers WHERE message = 'left open'") == 900);
  CHECK(number(db, "SELECT open_at_exit FROM markers WHERE message = 'left open'") == 1);
  CHECK(number(db, "SELECT COUNT(*) FROM markers WHERE open_at_exit = 1") == 1);
  CHECK(number(db, "SELECT COUNT(*) FROM markers") == 4);
}

TEST_CASE(
    "capture windows pair the switches in time order, and one left open ends at the process end",
    "[collector]") {
  TempDb tmp;
  {
    DbWriter w(tmp.path, 1, "test", prof::RuntimeId::kHip);
    auto sw = [](uint64_t t, bool on) {
      prof::CaptureSwitch s{};
      s.time_ns = t;
      s.on = on ? 1 : 0;
      s.cause = static_cast<uint8_t>(prof::CaptureCause::kProfilerApi);
      s.api_id =
          static_cast<uint16_t>(on ? prof::ApiId::hipProfilerStart : prof::ApiId::hipProfilerStop);
      return s;
    };
    w.set_process_end(800);
    w.begin_batch();
    w.set_capture_windows(
        {sw(300, false), sw(100, true), sw(500, true)});  // two threads' logs, any order
    w.end_batch();
    w.finalize("/nonexistent.maps", {}, 1000);
  }
  prof::Database db(tmp.path, prof::Database::Mode::kReadOnly);
  CHECK(number(db, "SELECT COUNT(*) FROM capture_windows") == 2);
  CHECK(number(db, "SELECT end_ns FROM capture_windows WHERE window_index = 0") == 300);
  CHECK(number(db, "SELECT end_ns FROM capture_windows WHERE window_index = 1") == 800);
  prof::Statement st(db,
                     "SELECT started_by, stopped_by FROM capture_windows WHERE window_index = 1");
  REQUIRE(st.step());
  CHECK(st.column_text(0) == "hipProfilerStart");
  CHECK(st.column_text(1) == "exit");
}
