// The producer (interpose/thread_buffer) and the consumer (collector) together, in one process:
// several threads publish records into small rings while the collector drains them into a db.
// Nothing may be lost or duplicated, and the waits of a full ring must be the only cost. This is
// the test the TSan build runs on the hot path's memory ordering.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "collector/buffer_reader.hpp"
#include "collector/collector.hpp"
#include "common/clock.hpp"
#include "common/journal_codec.hpp"
#include "db/sqlite_db.hpp"
#include "interpose/config.hpp"
#include "interpose/thread_buffer.hpp"
#include "runtimes/api_id.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using prof::interpose::ThreadBuffer;

// Each test's directories are named after this file's tests.
struct TempDir : prof::test::TempDir {
  TempDir() : prof::test::TempDir("prof-ring-test") {}
};

void produce(uint64_t records) {
  ThreadBuffer* buffer = ThreadBuffer::current(prof::RuntimeId::kHip);
  REQUIRE(buffer != nullptr);
  for (uint64_t i = 0; i < records; ++i) {
    prof::Record* r = buffer->reserve();
    if (!r) continue;  // dropped and counted; the test checks there were none
    prof::ApiRecord& a = r->api;
    std::memset(&a, 0, sizeof a);
    a.type = static_cast<uint8_t>(prof::RecordType::kApi);
    a.api_id = static_cast<uint16_t>(prof::ApiId::hipStreamQuery);
    a.correlation_id = buffer->next_correlation_id();
    a.begin_ns = prof::now_ns();
    a.end_ns = a.begin_ns + 1;
    buffer->commit();
  }
}

// The producer side of this process records into `run_dir`: rings of `ring_records`, a full ring
// waited on for up to `full_wait_ms`, no device timing. Set `enabled = false` when done.
prof::interpose::Config& record_into(const TempDir& run_dir, uint64_t ring_records,
                                     uint64_t full_wait_ms, uint64_t image_token) {
  auto& config = prof::interpose::g_config;
  std::strcpy(config.run_dir, run_dir.path.c_str());
  config.buffer_records = ring_records;
  config.full_wait_ms = full_wait_ms;
  config.image_token = image_token;
  config.device_timing = false;
  config.self_move = true;
  config.enabled = true;
  return config;
}

// Whether the collector has made a journal for some ring yet.
bool journal_of_ring(const std::string& journal_dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(journal_dir, ec))
    if (entry.path().extension() == ".jrnl") return true;
  return false;
}

// Makes a ring on a new thread (10 records) and waits until the collector has made its journal;
// false if it did not within 30 s (wall-clock: hang guard; what found it is what the tests check).
bool new_ring_journaled(const prof::collector::Collector& collector) {
  std::thread thread(produce, 10);
  thread.join();
  const auto made = std::chrono::steady_clock::now();  // wall-clock: hang guard
  while (!journal_of_ring(collector.journal_dir())) {
    if (std::chrono::steady_clock::now() - made > std::chrono::seconds(30))
      return false;  // wall-clock: hang guard
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

int64_t count(prof::Database& db, const std::string& sql) {
  prof::Statement st(db, sql);
  REQUIRE(st.step());
  return st.column_int(0);
}

// The tests below step a producing thread and the test's own hand on the ring in turns.
void wait_for(const std::atomic<int>& step, int value) {
  while (step.load() != value) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The ring file in `run_dir` (the tests below make one).
std::string ring_file(const TempDir& run_dir) {
  std::string path;
  for (const auto& entry : fs::directory_iterator(run_dir.path))
    if (entry.path().extension() == ".buf") path = entry.path().string();
  return path;
}

// Once the collector has made the ring's journal and moved everything the ring holds, takes the
// ring's move lock as `holder` (a producer, or a collector), as the collector's mover is not
// holding it.
void take_move_lock(prof::collector::BufferReader& ring, uint32_t holder) {
  prof::BufferHeader& h = ring.shared_header();
  for (int waited = 0; waited < 20000; ++waited) {
    ring.sync();
    if (h.journal_end.load() != 0 && ring.begin() == ring.end()) {
      uint32_t free = prof::kMoverNone;
      if (h.mover.compare_exchange_strong(free, holder)) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(h.mover.load() == holder);
}

}  // namespace

// Four threads through rings of 1024 records: the producers outrun the collector's mover.
// `self_move`: whether a thread whose ring is half full moves its own records into the journal
// (the default) or waits for the mover (PROF_SELF_MOVE=0). Either way every record reaches the
// db once, in each thread's order.
void many_threads_through_small_rings(bool self_move) {
  TempDir run_dir, out_dir;
  auto& config = record_into(run_dir, 1024, 60000, 1);
  config.self_move = self_move;

  constexpr int kThreads = 4;
  constexpr uint64_t kRecords = 20000;
  prof::collector::Collector collector(
      {run_dir.path.string(), "", out_dir.path.string(), "test", 1});
  collector.start();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(produce, kRecords);
  for (auto& t : threads) t.join();
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  config.self_move = true;

  REQUIRE(collector.errors().empty());
  REQUIRE(dbs.size() == 1);
  CHECK(dbs[0].pid == getpid());
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == kThreads * static_cast<int64_t>(kRecords));
  CHECK(count(db, "SELECT COUNT(DISTINCT thread_id) FROM api_calls") == kThreads);
  CHECK(count(db, "SELECT COUNT(*) FROM drops") == 0);
  CHECK(count(db, "SELECT MAX(sequence) FROM api_calls") ==
        kThreads * static_cast<int64_t>(kRecords));
  CHECK(count(db,
              "SELECT COUNT(*) FROM (SELECT begin_ns, LAG(begin_ns) OVER (PARTITION BY thread_id "
              "ORDER BY sequence) "
              "AS before FROM api_calls) WHERE begin_ns < before") == 0);
  if (self_move) {
    CHECK(count(db, "SELECT CAST(value AS INTEGER) > 0 FROM meta WHERE key = 'ring_self_moves'") ==
          1);
  } else {
    CHECK(count(db, "SELECT CAST(value AS INTEGER) > 0 FROM meta WHERE key = 'ring_full_waits'") ==
          1);
    CHECK(count(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'ring_self_moves'") == 0);
  }
}

TEST_CASE("records from many threads through small rings reach the db once each",
          "[collector][interpose]") {
  SECTION("threads wait for the collector") { many_threads_through_small_rings(false); }
  SECTION("threads move their own records") { many_threads_through_small_rings(true); }
}

// An idle mover backs off to drain_interval_ms between cycles; a new ring rings the collector's
// doorbell, so the mover makes its journal at once instead of at the end of its pause (a busy new
// thread fills its ring in about 5 ms: the wait this saves).
TEST_CASE("a new ring wakes a mover that has backed off", "[collector][interpose]") {
  TempDir run_dir, out_dir;
  auto& config = record_into(run_dir, 4096, 60000, 4);
  prof::collector::CollectorOptions options{run_dir.path.string(), "", out_dir.path.string(),
                                            "test", 4000};
  prof::collector::Collector collector(options);
  collector.start();
  // Idle cycles double the pause: after 2.1 s it is 1024 ms, and the next cycle is about 3.07 s in.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  const uint64_t wakes = collector.bell_wakes();
  const bool found = new_ring_journaled(collector);
  const uint64_t woken = collector.bell_wakes() - wakes;
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  CHECK(found);
  CHECK(woken >= 1);  // the bell ended the rest, not its timeout
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 10);
}

// A thread that turns busy after a quiet spell, while the mover rests through a long pause: at
// half its ring it moves its own records and rings the doorbell, so the mover is back within a
// cycle instead of at the end of its pause (it then takes the ring back from the thread).
TEST_CASE("a ring that turns busy wakes a resting mover", "[collector][interpose]") {
  TempDir run_dir, out_dir;
  auto& config = record_into(run_dir, 4096, 60000, 7);
  prof::collector::CollectorOptions options{run_dir.path.string(), "", out_dir.path.string(),
                                            "test", 4000};
  prof::collector::Collector collector(options);
  collector.start();
  std::atomic<int> step{0};
  std::thread thread([&] {
    produce(10);
    step = 1;
    wait_for(step, 2);
    produce(3000);  // past half of 4096: the thread moves its own records
    step = 3;
    wait_for(step, 4);
  });
  wait_for(step, 1);
  while (!journal_of_ring(collector.journal_dir()))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Idle cycles double the pause: after 2.1 s it is 1024 ms or more.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  const uint64_t wakes = collector.bell_wakes();
  step = 2;
  wait_for(step, 3);
  const auto busy = std::chrono::steady_clock::now();  // wall-clock: hang guard
  while (collector.bell_wakes() == wakes &&
         std::chrono::steady_clock::now() - busy < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const uint64_t woken = collector.bell_wakes() - wakes;
  step = 4;
  thread.join();
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  CHECK(woken >= 1);  // the thread's bell ended the rest, not its timeout
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 3010);
  CHECK(count(db, "SELECT CAST(value AS INTEGER) > 0 FROM meta WHERE key = 'ring_self_moves'") ==
        1);
}

// Between rings, the mover reads the run directory only when its modification time has moved: a
// process's other files there (a launcher script's processes leave three each) cost an idle mover
// nothing. A ring whose producer could not ring the doorbell (here: the bell's file is gone) is
// still found at once, by the time the ring's file gave the directory, not by the read forced
// every second.
TEST_CASE("an idle mover reads the run directory only when it has changed",
          "[collector][interpose]") {
  TempDir run_dir, out_dir;
  for (int k = 0; k < 240; ++k)  // what 80 processes of a pyenv shim leave (.info, .lost, .maps)
    std::ofstream(run_dir.path / (std::to_string(100000 + k) + ".1.info")) << "x";
  auto& config = record_into(run_dir, 4096, 60000, 6);
  prof::collector::Collector collector(
      {run_dir.path.string(), "", out_dir.path.string(), "test", 20});
  collector.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the directory's time settles
  const uint64_t reads_before = collector.directory_reads();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // about 30 idle cycles
  const uint64_t idle_reads = collector.directory_reads() - reads_before;
  // Just after the read forced every second: the next one is a second away.
  const uint64_t reads = collector.directory_reads();
  for (int waited = 0; collector.directory_reads() == reads && waited < 2000; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fs::remove(run_dir.path / prof::kDoorbellFile);
  const bool found = new_ring_journaled(collector);
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  CHECK(idle_reads <= 1);
  CHECK(found);
  CHECK(collector.rings_found_by_forced_read() == 0);  // found by the directory's time
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 10);
}

// A thread killed half-way through moving its own records leaves the move lock held and part of
// a block after the journal's end. Once its thread is gone, the mover takes the lock over, cuts
// the part off, and moves what the ring still holds: every record once, the journal readable.
TEST_CASE("the mover takes over a ring whose thread died moving its own records",
          "[collector][interpose]") {
  TempDir run_dir, out_dir;
  auto& config = record_into(run_dir, 4096, 60000, 5);
  prof::collector::Collector collector(
      {run_dir.path.string(), "", out_dir.path.string(), "test", 1});
  collector.start();
  std::atomic<int> step{0};
  std::thread thread([&] {
    produce(500);
    step = 1;
    wait_for(step, 2);
    produce(700);  // left in the ring: its mover "died"
    step = 3;
    wait_for(step, 4);
  });
  wait_for(step, 1);
  prof::collector::BufferReader ring;
  REQUIRE(ring.open(ring_file(run_dir)));
  prof::BufferHeader& h = ring.shared_header();
  // The journal made and the 500 records in it, then the lock taken as the thread would take it.
  take_move_lock(ring, prof::kMoverProducer);
  step = 2;
  wait_for(step, 3);
  {
    // What the thread had written of its block when it died: the first part of a block (a write
    // cut short ends the file, so a builder reading the journal meanwhile waits for the rest;
    // bytes that are no block at all read as a damaged journal to a builder that got there before
    // the mover's cut: 1 run in 10 under ASan). Its records differ in every word, so the part is
    // longer than the block the mover then writes there: not cut, its rest would follow it.
    std::vector<prof::Record> written(700);
    for (size_t k = 0; k < written.size(); ++k) {
      std::memset(written[k].raw, (k & 1) ? 0xAA : 0xAB, sizeof written[k].raw);
      written[k].raw[0] = static_cast<unsigned char>(prof::RecordType::kApi);
    }
    std::vector<unsigned char> block(prof::journal_block_bound(written.size()));
    const unsigned char* end =
        prof::encode_journal_block(block.data(), written.size(),
                                   [&](uint64_t k) -> const prof::Record& { return written[k]; });
    const size_t partial = static_cast<size_t>(end - block.data()) / 2;
    FILE* f = std::fopen(h.journal_path, "ab");
    REQUIRE(f != nullptr);
    REQUIRE(std::fwrite(block.data(), 1, partial, f) == partial);
    std::fclose(f);
  }
  step = 4;
  thread.join();  // the ring is released: no one else can free the lock
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  CHECK(collector.errors().empty());
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 1200);
  CHECK(count(db, "SELECT COUNT(DISTINCT correlation_id) FROM api_calls") == 1200);
}

// The collector offers the span it is moving (kMoverCollectorSpan) and is then held off the CPU,
// here for as long as the test likes. The thread whose ring fills meanwhile does not wait for it:
// it takes the span over, writes it as the collector would have (the same bytes at the same
// place: the collector, running again, may still write them), then its own records after it.
TEST_CASE(
    "a thread whose ring fills while the collector is off the CPU takes the collector's span over",
    "[collector][interpose]") {
  TempDir run_dir, out_dir;
  auto& config =
      record_into(run_dir, 4096, 3000, 6);  // (a thread that waited instead would drop records)
  prof::collector::Collector collector(
      {run_dir.path.string(), "", out_dir.path.string(), "test", 1});
  collector.start();
  std::atomic<int> step{0};
  std::thread thread([&] {
    produce(500);
    step = 1;
    wait_for(step, 2);
    produce(1000);  // the span
    step = 3;
    wait_for(step, 4);
    produce(5000);  // fills the ring past its 4096 records
    step = 5;
    wait_for(step, 6);
  });
  wait_for(step, 1);
  prof::collector::BufferReader ring;
  REQUIRE(ring.open(ring_file(run_dir)));
  prof::BufferHeader& h = ring.shared_header();
  // The journal made and the 500 records in it; then the lock taken as the collector takes it.
  take_move_lock(ring, prof::kMoverCollector);
  step = 2;
  wait_for(step, 3);
  // The span: the 1000 records the ring holds, at the journal's end.
  ring.sync();
  const uint64_t from = ring.begin();
  REQUIRE(from == 500);
  REQUIRE(ring.end() == 1500);
  std::vector<prof::Record> span;
  for (uint64_t i = from; i < ring.end(); ++i) span.push_back(ring.record(i));
  const uint64_t at = h.journal_end.load();
  const uint32_t offered =
      prof::kMoverCollectorSpan | static_cast<uint32_t>(span.size() << prof::kMoverSpanShift);
  h.mover.store(offered);
  step = 4;
  wait_for(step, 5);
  // Taken over, not waited for: the lock is no longer the collector's and the span is moved.
  CHECK(h.mover.load() != offered);
  CHECK(h.full_waits.load() == 0);
  CHECK(h.self_moves.load() >= 1);
  CHECK(h.read_index.load() > from + span.size());
  {
    // Written as the collector writes a span: one block of those records at the journal's end.
    std::vector<unsigned char> expected(prof::journal_block_bound(span.size()));
    unsigned char* end = prof::encode_journal_block(
        expected.data(), span.size(), [&](uint64_t k) -> const prof::Record& { return span[k]; });
    expected.resize(static_cast<size_t>(end - expected.data()));
    std::vector<unsigned char> written(expected.size());
    FILE* f = std::fopen(h.journal_path, "rb");
    CHECK(f != nullptr);
    if (f) {  // (CHECK, not REQUIRE: the thread must still be let go and joined)
      CHECK(std::fseek(f, static_cast<long>(at), SEEK_SET) == 0);
      CHECK(std::fread(written.data(), 1, written.size(), f) == written.size());
      std::fclose(f);
    }
    CHECK(written == expected);
  }
  step = 6;
  thread.join();
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;
  CHECK(collector.errors().empty());
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 6500);
  CHECK(count(db, "SELECT COUNT(DISTINCT correlation_id) FROM api_calls") == 6500);
  CHECK(count(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'ring_full_waits'") == 0);
  CHECK(
      count(
          db,
          "SELECT COUNT(*) FROM (SELECT begin_ns, LAG(begin_ns) OVER (ORDER BY sequence) AS before "
          "FROM api_calls) WHERE begin_ns < before") == 0);
}

// prof killed while its mover held a ring's move lock (between two steps, or with a span
// offered) leaves the lock held by a collector that is gone: the collector of `prof --recover`
// takes the ring up all the same.
TEST_CASE("a ring whose lock a killed prof's collector held is taken up by the next collector",
          "[collector][interpose]") {
  for (uint32_t held :
       {prof::kMoverCollector, prof::kMoverCollectorSpan | (200u << prof::kMoverSpanShift)}) {
    TempDir run_dir, out_dir;
    auto& config = record_into(run_dir, 4096, 3000, 8);
    std::thread([] { produce(300); }).join();  // no collector yet: the records stay in the ring
    config.enabled = false;
    {
      prof::collector::BufferReader ring;
      REQUIRE(ring.open(ring_file(run_dir)));
      ring.shared_header().mover.store(held);
    }
    prof::collector::Collector collector(
        {run_dir.path.string(), "", out_dir.path.string(), "test", 1});
    collector.start();
    std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
    CHECK(collector.errors().empty());
    REQUIRE(dbs.size() == 1);
    prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
    CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 300);
  }
}

// A thread of a few calls holds a ring of 256 records (a few pages, allocated at its first call);
// its 257th record takes the ring to its full size, which the collector's reader picks up.
TEST_CASE("a ring starts with 256 records and takes its full size when its first lap ends",
          "[collector][interpose]") {
  TempDir run_dir;
  auto& config = record_into(run_dir, 4096, 1000, 2);

  struct Seen {
    off_t file_bytes = 0;
    off_t allocated_bytes = 0;
    uint64_t capacity = 0;
    uint64_t published = 0;
    bool opened = false;
  };
  auto look = [&](Seen& seen) {
    for (const auto& entry : fs::directory_iterator(run_dir.path)) {
      if (entry.path().extension() != ".buf") continue;
      struct stat st {};
      stat(entry.path().c_str(), &st);
      seen.file_bytes = st.st_size;
      seen.allocated_bytes = static_cast<off_t>(st.st_blocks) * 512;
      prof::collector::BufferReader reader;
      seen.opened = reader.open(entry.path().string());
      if (seen.opened) {
        seen.published = reader.end();
        seen.capacity = reader.capacity();
      }
    }
  };
  Seen small, full;
  std::thread([&] {
    produce(10);
    look(small);
    produce(300);
    look(full);
  }).join();
  config.enabled = false;

  REQUIRE(small.opened);
  CHECK(small.published == 10);
  CHECK(small.capacity == 256);
  CHECK(small.file_bytes ==
        static_cast<off_t>(prof::buffer_file_bytes(4096)));  // sparse at its largest
  CHECK(small.allocated_bytes <= static_cast<off_t>(prof::buffer_file_bytes(256)));
  REQUIRE(full.opened);
  CHECK(full.published == 310);
  CHECK(full.capacity == 4096);
  CHECK(full.allocated_bytes >= static_cast<off_t>(prof::buffer_file_bytes(4096)));
}

// While the program runs, the builder numbers calls as they go in (call order, no renumbering
// pass) up to what a thread may still bring: a thread inside a call holds it at that call's begin
// for as long as the call lasts, and a thread between calls does not hold it at all.
TEST_CASE("the builder builds during the run up to the call a thread is inside, and no further",
          "[collector][interpose]") {
  TempDir run_dir, out_dir;
  auto& config = record_into(run_dir, 4096, 60000, 3);

  prof::collector::Collector collector(
      {run_dir.path.string(), "", out_dir.path.string(), "test", 1});
  collector.start();
  const std::string db_path =
      (out_dir.path / ("hip-prof-" + std::to_string(getpid()) + ".db")).string();
  // Rows built so far and the latest begin among them, read beside the builder's transactions.
  auto built = [&](int64_t& rows, int64_t& latest) {
    rows = latest = -1;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(db, 2000);
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db, "SELECT COUNT(*), COALESCE(MAX(begin_ns), 0) FROM api_calls", -1,
                             &st, nullptr) == SQLITE_OK &&
          sqlite3_step(st) == SQLITE_ROW) {
        rows = sqlite3_column_int64(st, 0);
        latest = sqlite3_column_int64(st, 1);
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
  };

  std::atomic<int> step{0};
  uint64_t inside_since = 0;
  std::thread calls([&] {
    while (step.load() != 10) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    produce(100);  // begun before the other thread's call
    step = 1;
    wait_for(step, 2);
    produce(100);  // begun after it: held back until that call is recorded
    step = 3;
  });
  std::thread inside([&] {  // enters a call and stays in it until told to return
    ThreadBuffer* buffer = ThreadBuffer::current(prof::RuntimeId::kHip);
    REQUIRE(buffer != nullptr);
    // The mover has seen this thread's ring (it made its journal) before the other thread starts:
    // a ring nobody has looked at yet can bound nothing.
    for (int waited = 0; waited < 20000 && !journal_of_ring(collector.journal_dir()); waited += 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    step = 10;
    wait_for(step, 1);
    inside_since = prof::now_ns();
    buffer->enter_call(inside_since);
    step = 2;
    wait_for(step, 4);
    prof::Record* r = buffer->reserve();
    REQUIRE(r != nullptr);
    std::memset(r, 0, sizeof *r);
    r->api.type = static_cast<uint8_t>(prof::RecordType::kApi);
    r->api.api_id = static_cast<uint16_t>(prof::ApiId::hipDeviceSynchronize);
    r->api.correlation_id = buffer->next_correlation_id();
    r->api.begin_ns = inside_since;
    r->api.end_ns = prof::now_ns();
    buffer->commit();
    buffer->leave_call();
  });
  wait_for(step, 3);

  // The first 100 are built while the run goes on (the thread that made them is between calls).
  int64_t rows = -1, latest = -1;
  for (int waited = 0; waited < 20000 && rows < 100; waited += 20) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    built(rows, latest);
  }
  const int64_t first_rows = rows, first_latest = latest;
  // Longer than the second after which a quiet thread used to stop holding the builder: still
  // nothing begun after the call in progress.
  int64_t later_rows = rows;
  for (int waited = 0; waited < 1500 && later_rows == 100; waited += 50) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    built(later_rows, latest);
  }
  step = 4;
  inside.join();
  calls.join();
  CHECK(first_rows == 100);
  CHECK(static_cast<uint64_t>(first_latest) < inside_since);
  CHECK(later_rows == 100);
  std::vector<prof::collector::CollectedProcess> dbs = collector.finish();
  config.enabled = false;

  for (const std::string& e : collector.errors()) UNSCOPED_INFO(e);
  REQUIRE(collector.errors().empty());
  REQUIRE(dbs.size() == 1);
  prof::Database db(dbs[0].db_path, prof::Database::Mode::kReadOnly);
  CHECK(count(db, "SELECT COUNT(*) FROM api_calls") == 201);
  // Numbered in call order: the long call is the 101st.
  CHECK(count(db, "SELECT sequence FROM api_calls WHERE api_id = " +
                      std::to_string(static_cast<int>(prof::ApiId::hipDeviceSynchronize))) == 101);
  CHECK(count(db,
              "SELECT COUNT(*) FROM api_calls a JOIN api_calls b ON b.sequence = a.sequence + 1"
              " WHERE b.begin_ns < a.begin_ns") == 0);
}
