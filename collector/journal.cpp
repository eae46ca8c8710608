#include "collector/journal.hpp"

#include "common/journal_codec.hpp"
#include "common/pwrite_all.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace prof::collector {

namespace {

// The builder maps at most this much of a journal at once: memory stays flat however long the run.
constexpr uint64_t kWindowRecords = (uint64_t{4} << 20) / kRecordBytes;

[[noreturn]] void fail(const std::string& path, const char* what) {
  throw std::runtime_error(path + ": " + what + " (" + std::strerror(errno) + ")");
}

bool valid_block(const JournalBlock& block) {
  return block.records > 0 && block.records <= kJournalBlockRecords &&
         block.payload_bytes >= kJournalMinRecordBytes * block.records &&
         block.payload_bytes <= block.records * kJournalMaxRecordBytes;
}

void write_all_at(int fd, const void* data, size_t bytes, off_t offset, const std::string& path) {
  if (!pwrite_all(fd, data, bytes, static_cast<uint64_t>(offset)))
    fail(path, "cannot write the journal");
}

// The end of the last whole block of a journal `size` bytes long, and the records up to it.
uint64_t complete_blocks(int fd, uint64_t size, uint64_t* records) {
  uint64_t at = kJournalHeaderBytes;
  *records = 0;
  JournalBlock block{};
  while (at + sizeof block <= size &&
         pread(fd, &block, sizeof block, static_cast<off_t>(at)) == sizeof block &&
         valid_block(block) && at + sizeof block + block.payload_bytes <= size) {
    *records += block.records;
    at += sizeof block + block.payload_bytes;
  }
  return at;
}

}  // namespace

}  // namespace prof::collector

bool prof::decode_journal_block(const unsigned char* p, size_t bytes, uint32_t records,
                                std::vector<Record>& out) {
  constexpr int kSlots = journal_codec::kTypeSlots;
  uint64_t prev[kSlots][8] = {};
  const unsigned char* const end = p + bytes;
  const auto unzigzag = [](uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); };
  for (uint32_t k = 0; k < records; ++k) {
    if (end - p < 2) return false;
    unsigned char type = *p++;
    if (type & 0x80) {  // a step from the previous record of its type
      const unsigned n2 = 1 + ((type >> 3) & 1), n3 = 1 + ((type >> 4) & 1);
      uint64_t* last = prev[type & (kSlots - 1)];
      const unsigned char previous_type = static_cast<unsigned char>(last[0]);
      if ((type & 0x60) != 0 || !journal_codec::plain_type(previous_type) ||
          (previous_type & (kSlots - 1)) != (type & (kSlots - 1)) ||
          end - p < static_cast<ptrdiff_t>(n2 + n3))
        return false;
      uint64_t z2 = p[0];
      if (n2 == 2) z2 |= uint64_t{p[1]} << 8;
      p += n2;
      uint64_t z3 = p[0];
      if (n3 == 2) z3 |= uint64_t{p[1]} << 8;
      p += n3;
      last[1] += 1;
      last[2] += unzigzag(z2);
      last[3] += unzigzag(z3);
      Record& r = out.emplace_back();
      std::memcpy(r.raw, last, sizeof r.raw);
      continue;
    }
    if (type == 0) {  // escaped: a type outside 1..0x7F
      type = *p++;
      if (end - p < 1 || journal_codec::plain_type(type)) return false;
    }
    const unsigned mask = *p++;
    uint64_t* last = prev[type & (kSlots - 1)];
    uint64_t w[8];
    if (mask == 0xFF) {
      if (end - p < static_cast<ptrdiff_t>(sizeof w)) return false;
      std::memcpy(w, p, sizeof w);
      p += sizeof w;
    } else {
      for (int i = 0; i < 8; ++i) {
        if (!(mask & (1u << i))) {
          w[i] = last[i];
          continue;
        }
        uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
          if (p == end || shift > 63) return false;
          const unsigned char byte = *p++;
          v |= static_cast<uint64_t>(byte & 0x7F) << shift;
          if (!(byte & 0x80)) break;
        }
        w[i] = last[i] + unzigzag(v);  // zigzag back to the signed difference
      }
    }
    if (static_cast<unsigned char>(w[0]) != type) return false;
    std::memcpy(last, w, sizeof w);
    Record& r = out.emplace_back();
    std::memcpy(r.raw, w, sizeof w);
  }
  return p == end;
}

namespace prof::collector {

JournalWriter::JournalWriter(const std::string& path, const BufferHeader& ring,
                             uint64_t start_index)
    : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) fail(path, "cannot create the journal");
  struct stat st {};
  if (fstat(fd_, &st) != 0) fail(path, "cannot read the journal");
  if (static_cast<size_t>(st.st_size) >= kJournalHeaderBytes &&
      pread(fd_, &header_, sizeof header_, 0) == static_cast<ssize_t>(sizeof header_) &&
      is_journal_magic(header_.magic)) {
    // Reopened (recovery): whole blocks only; what follows may use steps.
    if (header_.magic != kJournalMagic) {
      header_.magic = kJournalMagic;
      write_all_at(fd_, &header_.magic, sizeof header_.magic, 0, path_);
    }
    uint64_t records = 0;
    const uint64_t end = complete_blocks(fd_, static_cast<uint64_t>(st.st_size), &records);
    if (ftruncate(fd_, static_cast<off_t>(end)) != 0)
      fail(path, "cannot cut the journal's partial block");
    next_offset_ = end;
    next_index_ = header_.start_index + records;
    return;
  }
  header_.magic = 0;  // written last: a reader ignores the file until then
  header_.record_bytes = kRecordBytes;
  header_.first_runtime = ring.first_runtime;
  header_.pid = ring.pid;
  header_.tid = ring.tid;
  header_.thread_index = ring.thread_index;
  header_.created_ns = ring.created_ns;
  header_.start_index = start_index;
  if (ftruncate(fd_, kJournalHeaderBytes) != 0) fail(path, "cannot size the journal");
  write_all_at(fd_, &header_, sizeof header_, 0, path_);
  header_.magic = kJournalMagic;
  write_all_at(fd_, &header_.magic, sizeof header_.magic, 0, path_);
  next_offset_ = kJournalHeaderBytes;
  next_index_ = start_index;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count) {
  append_at(next_offset_, a, a_count, b, b_count);
}

uint64_t JournalWriter::append_at(uint64_t offset, const Record* a, uint64_t a_count,
                                  const Record* b, uint64_t b_count) {
  encode(a, a_count, b, b_count);
  return write_encoded_at(offset);
}

void JournalWriter::encode(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count) {
  const uint64_t count = a_count + b_count;
  const uint64_t blocks = (count + kJournalBlockRecords - 1) / kJournalBlockRecords;
  const size_t bound = blocks * sizeof(JournalBlock) + count * kJournalMaxRecordBytes;
  if (bound > buffer_bytes_) {  // grown only, never cleared: the mover writes every byte it sends
    buffer_.reset(new unsigned char[bound]);
    buffer_bytes_ = bound;
  }
  uint64_t encoded = 0;
  unsigned char* end = encode_journal_blocks(
      buffer_.get(), buffer_.get() + buffer_bytes_, count, kJournalBlockRecords,
      [&](uint64_t i) -> const Record& { return i < a_count ? a[i] : b[i - a_count]; }, encoded);
  encoded_bytes_ = static_cast<size_t>(end - buffer_.get());
  encoded_records_ = count;
}

uint64_t JournalWriter::write_encoded_at(uint64_t offset, bool cut_on_failure) {
  next_offset_ = offset;
  if (encoded_records_ == 0) return next_offset_;
  try {
    write_all_at(fd_, buffer_.get(), encoded_bytes_, static_cast<off_t>(next_offset_), path_);
  } catch (...) {
    // Whole blocks only: a later reopen must not find half of one.
    if (cut_on_failure) (void)ftruncate(fd_, static_cast<off_t>(next_offset_));
    throw;
  }
  next_offset_ += encoded_bytes_;
  next_index_ += encoded_records_;
  encoded_records_ = 0;
  return next_offset_;
}

void JournalWriter::cut_at(uint64_t offset) {
  if (ftruncate(fd_, static_cast<off_t>(offset)) != 0)
    fail(path_, "cannot cut the journal's partial block");
  next_offset_ = offset;
}

void JournalWriter::update_counters(const BufferHeader& ring) {
  if (const uint64_t self_moves = ring.self_moves.load(std::memory_order_relaxed);
      self_moves != header_.self_moves) {
    header_.self_moves = self_moves;
    write_all_at(fd_, &header_.self_moves, sizeof header_.self_moves,
                 offsetof(JournalHeader, self_moves), path_);
  }
  const uint64_t dropped = ring.dropped.load(std::memory_order_relaxed);
  const uint64_t full_waits = ring.full_waits.load(std::memory_order_relaxed);
  const uint64_t timing_dropped = ring.timing_dropped.load(std::memory_order_relaxed);
  // Called every mover cycle (a millisecond while busy) for every ring: a write only on a change.
  if (written_counters_ && dropped == header_.dropped && full_waits == header_.full_waits &&
      timing_dropped == header_.timing_dropped)
    return;
  header_.dropped = dropped;
  header_.full_waits = full_waits;
  header_.timing_dropped = timing_dropped;
  written_counters_ = true;
  write_all_at(fd_, &header_.dropped, 3 * sizeof(uint64_t), offsetof(JournalHeader, dropped),
               path_);
}

void JournalWriter::mark_thread_exited() {
  header_.thread_exited = 1;
  write_all_at(fd_, &header_.thread_exited, sizeof header_.thread_exited,
               offsetof(JournalHeader, thread_exited), path_);
}

JournalReader::~JournalReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool JournalReader::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  JournalHeader header{};
  if (pread(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      !is_journal_magic(header.magic) || header.record_bytes != kRecordBytes) {
    ::close(fd);
    return false;
  }
  path_ = path;
  fd_ = fd;
  header_ = header;
  next_offset_ = kJournalHeaderBytes;
  return true;
}

void JournalReader::refresh(bool settled) {
  // The header before the size: the mover marks a journal thread_exited after appending the
  // thread's last records, so a mark seen here comes with all of them (read in the other order, a
  // thread's last calls could be left out of a window whose header says it holds nothing more).
  (void)pread(fd_, &header_, sizeof header_, 0);  // the counters move as the run goes
  struct stat st {};
  if (fstat(fd_, &st) != 0) return;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  // Released records leave the window; whole blocks are decoded into it up to about its size.
  window_.erase(window_.begin(), window_.begin() + static_cast<ptrdiff_t>(read_ - window_first_));
  window_first_ = read_;
  more_ = false;
  JournalBlock block{};
  while (!broken_ && next_offset_ + sizeof block <= size) {
    if (window_.size() >= kWindowRecords) {
      more_ = true;
      break;
    }
    if (pread(fd_, &block, sizeof block, static_cast<off_t>(next_offset_)) != sizeof block) break;
    if (!valid_block(block)) {
      broken_ = settled;
      more_ = !settled;
      break;
    }
    if (next_offset_ + sizeof block + block.payload_bytes > size) break;  // still being written
    payload_.resize(block.payload_bytes);
    if (pread(fd_, payload_.data(), block.payload_bytes,
              static_cast<off_t>(next_offset_ + sizeof block)) !=
        static_cast<ssize_t>(block.payload_bytes))
      break;
    // A journal past one block's worth takes the window's largest size in one step:
    // grown by doubling, each step's fresh pages were faulted in again (a thread's window went
    // through 16 MiB of new pages to reach 5), most of the live builder's time on a busy run.
    if (const size_t need = window_.size() + block.records;
        need > window_.capacity() && need > kJournalBlockRecords)
      window_.reserve(kWindowRecords + kJournalBlockRecords);
    const size_t before = window_.size();
    if (!decode_journal_block(payload_.data(), payload_.size(), block.records, window_)) {
      window_.resize(before);
      broken_ = settled;
      more_ = !settled;
      break;
    }
    next_offset_ += sizeof block + block.payload_bytes;
  }
}

}  // namespace prof::collector
