// The journal: where records go between a thread's ring (memory, /dev/shm) and its process's
// database. While the program runs, the collector only moves records out of the rings into one
// append-only journal file per ring, on the output file system (sequential, large writes, the
// record format unchanged); the database is built from the journals by another thread, and to
// completion after the program exits. A journal survives prof being killed: `prof --recover`
// builds the database from it (docs/design-collector.md, "Recovery").
//
// File: a 4096-byte JournalHeader, then blocks of encoded records (common/journal_codec.hpp:
// 3-10 bytes for a typical call instead of its 64). Ring index `start_index + k` is the journal's
// record k: a move writes the records first and releases them from the ring after, so after a
// kill the journal may hold records the ring still lists as unread, never fewer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/record.hpp"

namespace prof::collector {

inline constexpr uint64_t kJournalMagic =
    0x334e524a464f5250ull;  // "PROFJRN3": encoded blocks with steps
// An earlier prof's journal (no step form): its blocks decode as they are, so a run it left is
// recovered; a journal reopened to append to becomes version 3.
inline constexpr uint64_t kJournalMagicV2 = 0x324e524a464f5250ull;  // "PROFJRN2"
inline bool is_journal_magic(uint64_t magic) {
  return magic == kJournalMagic || magic == kJournalMagicV2;
}
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
  // 1 once the thread has exited and every record of its ring is in the journal: no call follows.
  uint64_t thread_exited;
  // The ring's producer counter of the times it moved its own records here (BufferHeader::mover).
  uint64_t self_moves;
};
static_assert(sizeof(JournalHeader) <= kJournalHeaderBytes);

// The mover's end of one journal: appends a ring's records, encoded, with write(2), so what it
// wrote is in the file (page cache) the moment the call returns, whatever happens to prof after.
class JournalWriter {
 public:
  // Creates `path` for the ring whose header is `ring`, or reopens it (recovery): then a partly
  // written last block is cut off. Throws std::runtime_error naming the file.
  JournalWriter(const std::string& path, const BufferHeader& ring, uint64_t start_index);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // The ring index one past the last record in the journal.
  // (As of opening, and of this writer's own appends: the ring's producer appends too.)
  uint64_t next_index() const { return next_index_; }
  // The file's length as this writer knows it: where its next block goes.
  uint64_t end_offset() const { return next_offset_; }
  // Appends records [first, first + count) of a ring's storage (a wrap-around takes two spans).
  // Throws std::runtime_error (disk full, I/O error).
  void append(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count);
  // The same at `offset` (the ring's journal_end: its producer may have appended since this
  // writer last did); returns the journal's new end.
  uint64_t append_at(uint64_t offset, const Record* a, uint64_t a_count, const Record* b,
                     uint64_t b_count);
  // append_at in two steps, for a span the ring's producer may take over (kMoverCollectorSpan):
  // encode the records (at most kJournalBlockRecords: one block, the bytes
  // encode_journal_block gives), then write them at `offset` and return the new end.
  // A failed write is cut off (whole blocks only) unless `cut_on_failure` is false: then the
  // caller cuts it if the span is still its own (a producer may have written the same bytes and
  // more after them).
  void encode(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count);
  uint64_t write_encoded_at(uint64_t offset, bool cut_on_failure = true);
  // Drops whatever follows `offset` (a block that a producer killed while writing left half-way).
  void cut_at(uint64_t offset);
  // Copies the ring's producer counters into the header.
  void update_counters(const BufferHeader& ring);
  // Says in the header that the thread has exited and its ring is all here.
  void mark_thread_exited();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool written_counters_ = false;  // header_'s counters are in the file
  int fd_ = -1;
  uint64_t next_index_ = 0;
  uint64_t next_offset_ = 0;  // the file's length: where the next block goes
  JournalHeader header_{};
  std::unique_ptr<unsigned char[]> buffer_;  // one append's blocks
  size_t buffer_bytes_ = 0;
  size_t encoded_bytes_ = 0;  // of buffer_, by the last encode()
  uint64_t encoded_records_ = 0;
};

// The builder's end: the records appended so far, decoded a window at a time (whole blocks, about
// 4 MiB of records). The same begin()/end()/record()/release() shape as BufferReader, so one
// drain serves both.
class JournalReader {
 public:
  JournalReader() = default;
  ~JournalReader();
  JournalReader(const JournalReader&) = delete;
  JournalReader& operator=(const JournalReader&) = delete;
  // false when the file is not a journal (or its header is not complete yet).
  bool open(const std::string& path);
  const std::string& path() const { return path_; }
  const JournalHeader& header() const { return header_; }
  // Re-reads the header; drops the released records and decodes the blocks written since, as far
  // as the window goes. A block still being written waits for the next refresh. `settled`: nothing
  // writes the journal any more (the final build, recovery), so a block that does not decode is
  // damage. Before that it may be one being rewritten under the read (the mover cuts a dead
  // producer's partial block and writes its own at the same offset): it is read again at the next
  // refresh, and more() holds back what the thread may bring after it.
  void refresh(bool settled = true);
  uint64_t begin() const { return read_; }
  uint64_t end() const { return window_first_ + window_.size(); }
  // Whether the journal held records past the window at the last refresh.
  bool more() const { return more_; }
  // A block that did not decode (the file was damaged): nothing after it is read.
  bool broken() const { return broken_; }
  const Record& record(uint64_t index) const { return window_[index - window_first_]; }
  void release(uint64_t index) { read_ = index; }

 private:
  std::string path_;
  int fd_ = -1;
  JournalHeader header_{};
  std::vector<Record> window_;
  uint64_t window_first_ = 0;  // journal record index of window_[0]
  uint64_t read_ = 0;          // journal record indexes (0 = the first record of the file)
  uint64_t next_offset_ = 0;   // the first block not decoded yet
  bool more_ = false;
  bool broken_ = false;  // a block that does not decode: nothing after it is read
  std::vector<unsigned char> payload_;
};

}  // namespace prof::collector
