#include "collector/buffer_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace prof::collector {

BufferReader::~BufferReader() {
  if (header_) munmap(header_, map_bytes_);
}

bool BufferReader::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < kBufferHeaderBytes) {
    ::close(fd);
    return false;
  }
  // The magic first: the producer sets the file's full size (a ring that grows is a sparse file of
  // its largest size) before the magic, so the size read after it is final.
  void* head = mmap(nullptr, kBufferHeaderBytes, PROT_READ, MAP_SHARED, fd, 0);
  if (head == MAP_FAILED) {
    ::close(fd);
    return false;
  }
  const bool published = std::atomic_ref<uint64_t>(static_cast<BufferHeader*>(head)->magic)
                             .load(std::memory_order_acquire) == kBufferMagic;
  munmap(head, kBufferHeaderBytes);
  if (!published || fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  void* map =
      mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return false;
  auto* header = static_cast<BufferHeader*>(map);
  const uint64_t capacity =
      std::atomic_ref<uint64_t>(header->capacity).load(std::memory_order_acquire);
  bool ok = header->version == kBufferVersion && header->record_bytes == kRecordBytes && capacity &&
            (capacity & (capacity - 1)) == 0 &&
            buffer_file_bytes(capacity) <= static_cast<size_t>(st.st_size);
  if (!ok) {
    munmap(map, static_cast<size_t>(st.st_size));
    return false;
  }
  path_ = path;
  header_ = header;
  map_bytes_ = static_cast<size_t>(st.st_size);
  records_ = reinterpret_cast<const Record*>(static_cast<unsigned char*>(map) + kBufferHeaderBytes);
  mask_ = capacity - 1;
  read_ = header->read_index.load(std::memory_order_acquire);
  return true;
}

}  // namespace prof::collector
