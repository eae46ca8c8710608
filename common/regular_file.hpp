// Opening a file in a directory other users may write to (a 1777 scratch or output directory):
// whatever sits at the name may have been planted there. A symlink is never followed, and the
// open never waits, so a FIFO (whose open blocks until a peer appears) cannot hang prof; what is
// opened must then be a regular file, or the descriptor is closed again.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace prof {

// errno after open_regular() refused something that is not a regular file (a FIFO, socket,
// device or directory); open(2) itself never sets it for a regular file.
inline constexpr int kNotRegularFile = ENXIO;

// open(2) with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC added, then fstat: -1 with errno
// kNotRegularFile unless a regular file was opened. O_NONBLOCK is cleared again afterwards (it
// means nothing for a regular file, but the caller did not ask for it).
inline int open_regular(const char* path, int flags, mode_t mode = 0) noexcept {
  const int fd = ::open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0) return -1;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = kNotRegularFile;
    return -1;
  }
  if (!(flags & O_NONBLOCK)) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace prof
