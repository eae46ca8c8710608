// A whole buffer written at an offset, through short writes and EINTR: the journal's two writers
// (collector/journal.cpp, interpose/thread_buffer.cpp) and the run manifest (cli/recovery.cpp).
#pragma once
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace prof {

// False if some of it could not be written (errno says why).
inline bool pwrite_all(int fd, const void* data, size_t bytes, uint64_t offset) noexcept {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace prof
