// The journal's encoding and framing (common/journal_codec.hpp, collector/journal.cpp): every
// record comes back bit for bit, whatever its bytes; a typical call takes a few bytes; a block cut
// short by a kill is dropped whole (by the reader and by a reopening writer), and a damaged block
// stops the reader instead of yielding wrong records.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "collector/journal.hpp"
#include "common/journal_codec.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace prof;
using namespace prof::collector;

// Each test's directories are named after this file's tests.
struct TempDir : prof::test::TempDir {
  TempDir() : prof::test::TempDir("prof-journal-test") {}
};

// A run's records: calls with the next correlation id and later times, launches before some of
// them, device times after, a kernel name's text, and records of random bytes (any type byte).
std::vector<Record> sample_records(size_t count, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Record> records;
  uint64_t now = 1'795'469'279'061'387'843ull, corr = (uint64_t{1} << 40);
  while (records.size() < count) {
    const uint64_t pick = random() % 10;
    Record r{};
    if (pick < 6) {
      r.api.type = static_cast<uint8_t>(RecordType::kApi);
      r.api.api_id = static_cast<uint16_t>(random() % 3 + 10);
      r.api.correlation_id = ++corr;
      r.api.begin_ns = now += random() % 2000;
      r.api.end_ns = now += random() % 500;
      r.api.stream = pick == 0 ? random() : 0x5555'0000'1000ull;
      r.api.result = pick == 1 ? -1 : 0;
    } else if (pick < 7) {
      r.launch.type = static_cast<uint8_t>(RecordType::kLaunch);
      r.launch.correlation_id = corr + 1;
      r.launch.function = 0x7f00'1234'5678ull;
      r.launch.grid[0] = static_cast<uint32_t>(random());
      r.launch.block[0] = 256;
    } else if (pick < 8) {
      r.activity.type = static_cast<uint8_t>(RecordType::kActivity);
      r.activity.correlation_id = corr;
      r.activity.device_begin_ns = now - 100;
      r.activity.device_end_ns = now + random() % 100000;
    } else if (pick < 9) {
      r.string_data.type = static_cast<uint8_t>(RecordType::kStringData);
      for (char& c : r.string_data.text) c = static_cast<char>('a' + random() % 26);
    } else {
      for (unsigned char& byte : r.raw) byte = static_cast<unsigned char>(random());
    }
    records.push_back(r);
  }
  return records;
}

std::vector<unsigned char> encode(const std::vector<Record>& records) {
  std::vector<unsigned char> out(journal_block_bound(records.size()));
  unsigned char* end = encode_journal_block(
      out.data(), records.size(), [&](uint64_t k) -> const Record& { return records[k]; });
  REQUIRE(end <= out.data() + out.size());
  out.resize(static_cast<size_t>(end - out.data()));
  return out;
}

bool same(const std::vector<Record>& a, const std::vector<Record>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Record)) == 0;
}

std::vector<Record> read_all(const std::string& path, bool* broken = nullptr) {
  JournalReader reader;
  REQUIRE(reader.open(path));
  std::vector<Record> out;
  for (;;) {
    reader.refresh();
    if (reader.end() == reader.begin()) break;
    for (uint64_t i = reader.begin(); i < reader.end(); ++i) out.push_back(reader.record(i));
    reader.release(reader.end());
  }
  if (broken) *broken = reader.broken();
  return out;
}

}  // namespace

TEST_CASE("journal: every record decodes to its exact bytes, and a call takes a few", "[journal]") {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<Record> records = sample_records(1 + seed * 97 % 4000, seed);
    const std::vector<unsigned char> block = encode(records);
    JournalBlock header;
    std::memcpy(&header, block.data(), sizeof header);
    REQUIRE(header.records == records.size());
    REQUIRE(header.payload_bytes == block.size() - sizeof header);
    std::vector<Record> back;
    REQUIRE(decode_journal_block(block.data() + sizeof header, header.payload_bytes, header.records,
                                 back));
    REQUIRE(same(back, records));
  }
  // Back-to-back calls of one API, as a busy thread makes them: a few bytes each.
  std::vector<Record> calls(1000);
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].api = ApiRecord{};
    calls[i].api.type = static_cast<uint8_t>(RecordType::kApi);
    calls[i].api.api_id = 31;
    calls[i].api.correlation_id = (uint64_t{1} << 40) + i;
    calls[i].api.begin_ns = 77'188'152'721'916ull + i * 45;
    calls[i].api.end_ns = calls[i].api.begin_ns + 20 + i % 7;
  }
  const size_t bytes = encode(calls).size();
  INFO(bytes << " bytes for " << calls.size() << " calls");
  // Each call after the first is a step of 3 bytes (a tag and two 1-byte differences).
  REQUIRE(bytes <= sizeof(JournalBlock) + 2 + 8 * 9 + (calls.size() - 1) * 3);
}

TEST_CASE("journal: steps stand only for the records they fit, at every boundary", "[journal]") {
  // A call, then calls that are steps or just miss being one: differences at the edges of 1 and
  // 2 bytes, a correlation id that skips, another word that changes, and type bytes a step must
  // not take (0, 0x80 and above: escaped).
  Record base{};
  base.api.type = static_cast<uint8_t>(RecordType::kApi);
  base.api.api_id = 5;
  base.api.correlation_id = (uint64_t{3} << 40) + 10;
  base.api.begin_ns = 5'000'000'000ull;
  base.api.end_ns = 5'000'000'100ull;
  std::vector<Record> records{base};
  auto next = [&](int64_t begin_step, int64_t end_step, uint64_t corr_step = 1) {
    Record r = records.back();
    r.api.correlation_id += corr_step;
    r.api.begin_ns += static_cast<uint64_t>(begin_step);
    r.api.end_ns += static_cast<uint64_t>(end_step);
    records.push_back(r);
  };
  for (int64_t d : {0, 1, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769, 1 << 20})
    for (int64_t e : {0, 127, 128, 32767, 32768, -32769}) next(d, e);
  next(10, 10, 2);  // not a step: the id skips
  next(10, 10, 0);  // nor the same id
  next(10, 10);
  records.back().api.stream = 77;  // nor another stream
  next(10, 10);
  for (uint8_t type : {0, 0x80, 0xFF, 0x87}) {
    Record r = records.back();
    r.raw[0] = type;  // (slot type & 7, shared with the calls)
    records.push_back(r);
    next(10, 10);
    records.back().raw[0] = type;
  }
  next(10, 10);
  const std::vector<unsigned char> block = encode(records);
  JournalBlock header;
  std::memcpy(&header, block.data(), sizeof header);
  std::vector<Record> back;
  REQUIRE(decode_journal_block(block.data() + sizeof header, header.payload_bytes, header.records,
                               back));
  REQUIRE(same(back, records));

  // A step is its tag and 1 or 2 bytes per difference.
  auto bytes_of_second = [](const Record& first, const Record& second) {
    return encode({first, second}).size() - encode({first}).size();
  };
  Record one = base, two = base;
  one.api.correlation_id += 1;
  one.api.begin_ns += 127;  // zigzag 254: one byte
  one.api.end_ns += 128;    // zigzag 256: two
  REQUIRE(bytes_of_second(base, one) == 4);
  two.api.correlation_id += 1;
  two.api.begin_ns -= 32768;  // zigzag 65535: the largest step
  two.api.end_ns += 32767;
  REQUIRE(bytes_of_second(base, two) == 5);
}

TEST_CASE("journal: a run of steps is written as record by record", "[journal]") {
  // encode_journal_block encodes a run of steps with the previous record's words in registers
  // (journal_codec::encode_step_run); its bytes must be those of encode_record, one record at a
  // time. A busy thread's calls: runs of steps broken by each thing a step cannot say (an id that
  // skips, a time difference past 2 bytes, another stream, an escaped type), with launches and
  // device times of other types in between, and the mixed records of sample_records.
  std::mt19937_64 random(11);
  Record call{};
  call.api.type = static_cast<uint8_t>(RecordType::kApi);
  call.api.api_id = 7;
  call.api.correlation_id = uint64_t{5} << 40;
  call.api.begin_ns = 1'795'469'279'061'387'843ull;
  call.api.end_ns = call.api.begin_ns + 40;
  std::vector<Record> records;
  for (int i = 0; i < 6000; ++i) {
    call.api.correlation_id += random() % 97 == 0 ? 2 : 1;
    call.api.begin_ns += random() % 89 == 0 ? 70000 : 20 + random() % 300;
    call.api.end_ns = call.api.begin_ns + (random() % 83 == 0 ? 40000 : 30 + random() % 40);
    call.api.stream = random() % 79 == 0 ? random() : 0x5555'0000'1000ull;
    Record r = call;
    if (random() % 101 == 0) r.raw[0] = 0x81;  // escaped, in the calls' slot
    records.push_back(r);
    if (random() % 61 == 0) {
      Record launch{};
      launch.launch.type = static_cast<uint8_t>(RecordType::kLaunch);
      launch.launch.correlation_id = call.api.correlation_id + 1;
      records.push_back(launch);
    }
  }
  const std::vector<Record> mixed = sample_records(3000, 5);
  records.insert(records.end(), mixed.begin(), mixed.end());
  for (size_t count : {size_t{1}, size_t{2}, size_t{100}, records.size()}) {
    const std::vector<Record> part(records.begin(),
                                   records.begin() + static_cast<std::ptrdiff_t>(count));
    std::vector<unsigned char> one_by_one(journal_block_bound(count));
    uint64_t last[journal_codec::kTypeSlots][8] = {};
    unsigned char* end = one_by_one.data() + sizeof(JournalBlock);
    for (const Record& r : part)
      end =
          journal_codec::encode_record(end, r.raw, last[r.type & (journal_codec::kTypeSlots - 1)]);
    one_by_one.resize(static_cast<size_t>(end - one_by_one.data()));
    const std::vector<unsigned char> block = encode(part);
    REQUIRE(block.size() == one_by_one.size());
    REQUIRE(std::memcmp(block.data() + sizeof(JournalBlock),
                        one_by_one.data() + sizeof(JournalBlock),
                        block.size() - sizeof(JournalBlock)) == 0);
  }
  // And the calls are mostly steps: 4.8 bytes a record here (their differences often take 2 bytes).
  REQUIRE(encode(std::vector<Record>(records.begin(), records.begin() + 6000)).size() < 6000 * 5);
}

TEST_CASE("journal: a step with nothing to step from is refused", "[journal]") {
  std::vector<Record> back;
  // The first record of its type in the block cannot be a step.
  const unsigned char orphan[] = {0x81, 0x02, 0x02};
  REQUIRE_FALSE(decode_journal_block(orphan, sizeof orphan, 1, back));
  // A call, then a step whose unused tag bits are set.
  Record call{};
  call.api.type = static_cast<uint8_t>(RecordType::kApi);
  call.api.correlation_id = 9;
  std::vector<unsigned char> block = encode({call});
  std::vector<unsigned char> payload(block.begin() + sizeof(JournalBlock), block.end());
  const unsigned char bad_step[] = {0xA1, 0x02, 0x02};
  payload.insert(payload.end(), bad_step, bad_step + sizeof bad_step);
  back.clear();
  REQUIRE_FALSE(decode_journal_block(payload.data(), payload.size(), 2, back));
  payload.back() = 0x02;
  payload[payload.size() - 3] = 0x81;  // the same step, well formed: accepted
  back.clear();
  REQUIRE(decode_journal_block(payload.data(), payload.size(), 2, back));
  REQUIRE(back[1].api.correlation_id == 10);
  REQUIRE(back[1].api.begin_ns == 1);
}

TEST_CASE("journal: a damaged payload is refused, not decoded into other records", "[journal]") {
  const std::vector<Record> records = sample_records(500, 7);
  const std::vector<unsigned char> block = encode(records);
  JournalBlock header;
  std::memcpy(&header, block.data(), sizeof header);
  std::vector<Record> back;
  // Cut short, or one record too many claimed: never true.
  REQUIRE_FALSE(decode_journal_block(block.data() + sizeof header, header.payload_bytes - 1,
                                     header.records, back));
  back.clear();
  REQUIRE_FALSE(decode_journal_block(block.data() + sizeof header, header.payload_bytes,
                                     header.records + 1, back));
}

TEST_CASE(
    "journal: the writer and reader round-trip many appends, and a cut block is dropped whole",
    "[journal]") {
  TempDir dir;
  const std::string path = (dir.path / "1.1.0.jrnl").string();
  const std::vector<Record> records = sample_records(100'000, 3);
  BufferHeader ring{};
  ring.pid = 4242;
  ring.tid = 4243;
  uint64_t appended = 0;
  {
    JournalWriter writer(path, ring, 1000);
    // Appends as the mover makes them: a wrapped ring gives two spans; one is bigger than a block.
    const uint64_t sizes[] = {1, 700, 40000, 3, 29000};
    for (uint64_t size : sizes) {
      const uint64_t half = size / 3;
      writer.append(&records[appended], half, &records[appended + half], size - half);
      appended += size;
    }
    REQUIRE(writer.next_index() == 1000 + appended);
  }
  REQUIRE(same(read_all(path), std::vector<Record>(records.begin(), records.begin() + appended)));

  // prof killed in the middle of a write: the last block is incomplete.
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  REQUIRE(truncate(path.c_str(), st.st_size - 5) == 0);
  const std::vector<Record> kept = read_all(path);
  REQUIRE(kept.size() < appended);
  REQUIRE(same(kept, std::vector<Record>(records.begin(), records.begin() + kept.size())));
  {
    // Recovery reopens it: the partial block is cut off, the next append follows the last whole
    // one.
    JournalWriter writer(path, ring, 0);
    REQUIRE(writer.next_index() == 1000 + kept.size());
    writer.append(&records[kept.size()], 10, nullptr, 0);
  }
  REQUIRE(same(read_all(path),
               std::vector<Record>(records.begin(), records.begin() + kept.size() + 10)));

  // A damaged block stops the reader: what came before it, nothing after it.
  {
    const int fd = open(path.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    const unsigned char garbage[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    REQUIRE(pwrite(fd, garbage, sizeof garbage, static_cast<off_t>(kJournalHeaderBytes)) == 4);
    close(fd);
  }
  bool broken = false;
  REQUIRE(read_all(path, &broken).empty());
  REQUIRE(broken);
}

TEST_CASE(
    "journal: a block that does not decode while writers may still rewrite it is read again, not "
    "damage",
    "[journal]") {
  // The mover cuts a dead producer's partial block and writes its own at the same offset: a live
  // builder reading there meanwhile can see bytes of both. Only once nothing writes the journal
  // (settled: the final build, recovery) is such a block damage.
  TempDir dir;
  const std::string path = (dir.path / "1.1.0.jrnl").string();
  const std::vector<Record> records = sample_records(300, 11);
  BufferHeader ring{};
  ring.pid = 4242;
  ring.tid = 4243;
  uint64_t second_block = 0;
  {
    JournalWriter writer(path, ring, 0);
    writer.append(&records[0], 100, nullptr, 0);
    second_block = writer.end_offset();
    writer.append(&records[100], 200, nullptr, 0);
  }
  const int fd = open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  unsigned char saved[16];
  REQUIRE(pread(fd, saved, sizeof saved, static_cast<off_t>(second_block)) == sizeof saved);
  const unsigned char garbage[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                     0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  REQUIRE(pwrite(fd, garbage, sizeof garbage, static_cast<off_t>(second_block)) == sizeof garbage);

  JournalReader reader;
  REQUIRE(reader.open(path));
  reader.refresh(/*settled=*/false);
  REQUIRE_FALSE(reader.broken());
  REQUIRE(
      reader.more());  // the thread may bring calls after the block: nothing is numbered past them
  REQUIRE(reader.end() == 100);
  reader.release(reader.end());
  reader.refresh(/*settled=*/false);
  REQUIRE_FALSE(reader.broken());
  REQUIRE(reader.end() == 100);

  // The rewrite lands: the next refresh reads the block.
  REQUIRE(pwrite(fd, saved, sizeof saved, static_cast<off_t>(second_block)) == sizeof saved);
  reader.refresh(/*settled=*/false);
  REQUIRE_FALSE(reader.broken());
  REQUIRE_FALSE(reader.more());
  REQUIRE(reader.end() == 300);
  std::vector<Record> back;
  for (uint64_t i = reader.begin(); i < reader.end(); ++i) back.push_back(reader.record(i));
  REQUIRE(same(back, std::vector<Record>(records.begin() + 100, records.end())));

  // Settled, the same damage is damage: said, and nothing after it is read.
  REQUIRE(pwrite(fd, garbage, sizeof garbage, static_cast<off_t>(second_block)) == sizeof garbage);
  close(fd);
  JournalReader settled;
  REQUIRE(settled.open(path));
  settled.refresh(/*settled=*/false);
  REQUIRE(settled.end() == 100);
  settled.release(settled.end());
  settled.refresh(/*settled=*/true);
  REQUIRE(settled.broken());
  REQUIRE_FALSE(settled.more());
  REQUIRE(settled.end() == 100);
}

TEST_CASE("journal: the SSE2 encoder writes the same bytes as the word-by-word one", "[journal]") {
#if defined(__SSE2__)
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<Record> records = sample_records(500 + seed * 37, seed);
    std::vector<unsigned char> fast(records.size() * kJournalMaxRecordBytes), portable(fast.size());
    uint64_t fast_last[journal_codec::kTypeSlots][8] = {},
             portable_last[journal_codec::kTypeSlots][8] = {};
    unsigned char* f = fast.data();
    unsigned char* w = portable.data();
    for (const Record& r : records) {
      f = journal_codec::encode_record_sse2(f, r.raw,
                                            fast_last[r.type & (journal_codec::kTypeSlots - 1)]);
      w = journal_codec::encode_record_portable(
          w, r.raw, portable_last[r.type & (journal_codec::kTypeSlots - 1)]);
    }
    fast.resize(static_cast<size_t>(f - fast.data()));
    portable.resize(static_cast<size_t>(w - portable.data()));
    REQUIRE(fast == portable);
  }
#else
  SUCCEED("no SSE2 here: the word-by-word encoder is the only one");
#endif
}
