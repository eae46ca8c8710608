// The consumer side of common/record.hpp: maps one thread's ring file and hands out the
// records published since the last call.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "common/record.hpp"

namespace prof::collector {

class BufferReader {
 public:
  ~BufferReader();
  // false while the producer has not finished writing the header (magic not set yet) or the
  // file is not a prof buffer of this version.
  bool open(const std::string& path);
  const BufferHeader& header() const { return *header_; }
  // The header's shared fields the reader writes (the move lock, the journal's end).
  BufferHeader& shared_header() { return *header_; }
  const std::string& path() const { return path_; }

  // Published records [read, write): consume via record(i) for i in [begin(), end()), then
  // release(n) with the index up to which everything was processed.
  uint64_t begin() const { return read_; }
  // Also takes up the ring's capacity: a ring grows (interpose/thread_buffer.hpp) before it
  // publishes a record beyond its old size, so the capacity read after the write index covers
  // every record up to it.
  uint64_t end() const {
    const uint64_t write = header_->write_index.load(std::memory_order_acquire);
    const uint64_t capacity = std::atomic_ref<uint64_t>(const_cast<uint64_t&>(header_->capacity))
                                  .load(std::memory_order_acquire);
    // Only a larger power of two that the mapping holds (the file has the ring's full size).
    if (capacity > mask_ + 1 && (capacity & (capacity - 1)) == 0 &&
        buffer_file_bytes(capacity) <= map_bytes_)
      mask_ = capacity - 1;
    return write;
  }
  // Records the ring holds now (its capacity as of the last end()).
  uint64_t capacity() const { return mask_ + 1; }
  const Record& record(uint64_t index) const { return records_[index & mask_]; }
  // Takes up records the producer moved into the journal itself (BufferHeader::mover).
  void sync() { read_ = header_->read_index.load(std::memory_order_acquire); }
  void release(uint64_t index) {
    read_ = index;
    header_->read_index.store(index,
                              std::memory_order_release);  // the producer may reuse the slots
  }

 private:
  std::string path_;
  BufferHeader* header_ = nullptr;
  const Record* records_ = nullptr;
  size_t map_bytes_ = 0;
  mutable uint64_t mask_ = 0;
  uint64_t read_ = 0;
};

}  // namespace prof::collector
