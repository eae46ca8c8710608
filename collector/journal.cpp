#include "collector/journal.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
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

void write_all_at(int fd, const void* data, size_t bytes, off_t offset, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = pwrite(fd, p, bytes, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot write the journal");
    p += n;
    bytes -= static_cast<size_t>(n);
    offset += n;
  }
}

}  // namespace

JournalWriter::JournalWriter(const std::string& path, const BufferHeader& ring, uint64_t start_index) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) fail(path, "cannot create the journal");
  struct stat st {};
  if (fstat(fd_, &st) != 0) fail(path, "cannot read the journal");
  if (static_cast<size_t>(st.st_size) >= kJournalHeaderBytes &&
      pread(fd_, &header_, sizeof header_, 0) == static_cast<ssize_t>(sizeof header_) && header_.magic == kJournalMagic) {
    // Reopened (recovery): whole records only.
    const uint64_t records = (static_cast<uint64_t>(st.st_size) - kJournalHeaderBytes) / kRecordBytes;
    if (ftruncate(fd_, static_cast<off_t>(kJournalHeaderBytes + records * kRecordBytes)) != 0)
      fail(path, "cannot cut the journal's partial record");
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
  next_index_ = start_index;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const Record* a, uint64_t a_count, const Record* b, uint64_t b_count) {
  iovec parts[2] = {{const_cast<Record*>(a), a_count * kRecordBytes}, {const_cast<Record*>(b), b_count * kRecordBytes}};
  off_t offset = static_cast<off_t>(kJournalHeaderBytes + (next_index_ - header_.start_index) * kRecordBytes);
  int first = a_count ? 0 : 1;
  const int last = b_count ? 2 : 1;
  while (first < last) {
    const ssize_t n = pwritev(fd_, parts + first, last - first, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Whole records only: a later reopen must not find half of one.
      (void)ftruncate(fd_, static_cast<off_t>(kJournalHeaderBytes + (next_index_ - header_.start_index) * kRecordBytes));
      fail(path_, "cannot write the journal");
    }
    offset += n;
    size_t left = static_cast<size_t>(n);
    while (first < last && left >= parts[first].iov_len) left -= parts[first++].iov_len;
    if (first < last) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
  next_index_ += a_count + b_count;
}

void JournalWriter::update_counters(const BufferHeader& ring) {
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
  write_all_at(fd_, &header_.dropped, 3 * sizeof(uint64_t), offsetof(JournalHeader, dropped), path_);
}

JournalReader::~JournalReader() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

void JournalReader::unmap() {
  if (map_) munmap(map_, map_bytes_);
  map_ = nullptr;
  map_records_ = nullptr;
  map_bytes_ = 0;
}

bool JournalReader::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  JournalHeader header{};
  if (pread(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) || header.magic != kJournalMagic ||
      header.record_bytes != kRecordBytes) {
    ::close(fd);
    return false;
  }
  path_ = path;
  fd_ = fd;
  header_ = header;
  return true;
}

void JournalReader::refresh() {
  struct stat st {};
  if (fstat(fd_, &st) != 0) return;
  (void)pread(fd_, &header_, sizeof header_, 0);  // the counters move as the run goes
  const uint64_t total = (static_cast<uint64_t>(st.st_size) - kJournalHeaderBytes) / kRecordBytes;
  total_ = total;
  const uint64_t end = std::min(total, read_ + kWindowRecords);
  const uint64_t records_per_page = 4096 / kRecordBytes;
  const uint64_t first = read_ / records_per_page * records_per_page;
  unmap();
  end_ = read_;
  if (end <= read_) return;
  const size_t bytes = static_cast<size_t>((end - first) * kRecordBytes);
  void* map = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_,
                   static_cast<off_t>(kJournalHeaderBytes + first * kRecordBytes));
  if (map == MAP_FAILED) return;
  madvise(map, bytes, MADV_SEQUENTIAL);
  map_ = map;
  map_bytes_ = bytes;
  map_first_ = first;
  map_records_ = static_cast<const Record*>(map);
  end_ = end;
}

}  // namespace prof::collector
