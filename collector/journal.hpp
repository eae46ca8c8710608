// The journal: where records go between a thread's ring (memory, /dev/shm) and its process's
// database. While the program runs, the collector only moves records out of the rings into one
// append-only journal file per ring, on the output file system (sequential, large writes, the
// record format unchanged); the database is built from the journals by another thread, and to
// completion after the program exits. A journal survives prof being killed: `prof --recover`
// builds the database from it (docs/design.md, "Journal and recovery").
//
// File: a 4096-byte JournalHeader, then whole 64-byte records. Ring index `start_index + k` is
// record k: a move writes the records first and releases them from the ring after, so after a
// kill the journal may hold records the ring still lists as unread, never fewer.
#pragma once
#include <cstdint>
#include <string>

#include "common/record.hpp"

namespace prof::collector {

inline constexpr uint64_t kJournalMagic = 0x314e524a464f5250ull;  // "PROFJRN1"
inline constexpr size_t kJournalHeaderBytes = 4096;

struct JournalHeader {
  uint64_t magic;
  uint32_t record_bytes;
  uint32_t first_runtime;
  uint32_t pid;
  uint32_t tid;
  uint64_t thread_index;
  uint64_t created_ns;
  uint64_t start_index;  // the ring index of the journal's first record
  // The ring's producer counters, copied when the ring was last seen (updated as the run goes).
  uint64_t dropped;
  uint64_t full_waits;
  uint64_t timing_dropped;
};
static_assert(sizeof(JournalHeader) <= kJournalHeaderBytes);

// The mover's end of one journal: appends a ring's records with write(2), so what it wrote is in
// the file (page cache) the moment the call returns, whatever happens to prof after.
class JournalWriter {
 public:
  // Creates `path` for the ring whose header is `ring`, or reopens it (recovery): then a partly
  // written last record is cut off. Throws std::runtime_error naming the file.
  JournalWriter(const std::string& path, const BufferHeader& ring, uint64_t start_index);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // The ring index one past the last record in the journal.
  uint64_t next_index() const { return next_index_; }
  // Appends records [first, first + count) of a ring's storage (a wrap-around takes two spans).
  // Throws std::runtime_error (disk full, I/O error).
  void append(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count);
  // Copies the ring's producer counters into the header.
  void update_counters(const BufferHeader& ring);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool written_counters_ = false;  // header_'s counters are in the file
  int fd_ = -1;
  uint64_t next_index_ = 0;
  JournalHeader header_{};
};

// The builder's end: the records appended so far, read through a sliding read-only mapping. The
// same begin()/end()/record()/release() shape as BufferReader, so one drain serves both.
class JournalReader {
 public:
  ~JournalReader();
  // false when the file is not a journal (or its header is not complete yet).
  bool open(const std::string& path);
  const std::string& path() const { return path_; }
  const JournalHeader& header() const { return header_; }
  // Re-reads the file's length and header; maps the records from begin() on (at most a window).
  void refresh();
  uint64_t begin() const { return read_; }
  uint64_t end() const { return end_; }
  // Whether the journal holds records past the mapped window (seen at the last refresh).
  bool more() const { return end_ < total_; }
  const Record& record(uint64_t index) const { return map_records_[index - map_first_]; }
  void release(uint64_t index) { read_ = index; }

 private:
  void unmap();
  std::string path_;
  int fd_ = -1;
  JournalHeader header_{};
  const Record* map_records_ = nullptr;
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint64_t map_first_ = 0;  // journal record index of map_records_[0]
  uint64_t read_ = 0;       // journal record indexes (0 = the first record of the file)
  uint64_t end_ = 0;
  uint64_t total_ = 0;
};

}  // namespace prof::collector
