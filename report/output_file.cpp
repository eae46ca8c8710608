#include "report/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "report/report_error.hpp"

namespace prof::report {

namespace {
constexpr size_t kFlushBytes = 1 << 16;
}

OutputFile::OutputFile(std::string final_path)
    : final_path_(std::move(final_path)), temp_path_(final_path_ + ".tmp-" + std::to_string(::getpid())) {
  struct stat st;
  if (::lstat(final_path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw ReportError(final_path_ + ": refusing to write a report through a symbolic link");
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    int error = errno;
    if (error == ELOOP) throw ReportError(temp_path_ + ": refusing to write a report through a symbolic link");
    throw ReportError(final_path_ + ": cannot create: " + std::strerror(error));
  }
  buffer_.reserve(kFlushBytes + 4096);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::fail(std::string_view what, int error) const {
  throw ReportError(final_path_ + ": " + std::string(what) + ": " + std::strerror(error));
}

void OutputFile::write(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= kFlushBytes) flush();
}

void OutputFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

void OutputFile::finish() {
  if (fd_ < 0) return;
  flush();
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail("cannot write", errno);
}

void OutputFile::commit() {
  finish();
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) fail("cannot rename the finished report into place", errno);
  committed_ = true;
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!committed_) ::unlink(temp_path_.c_str());
  committed_ = true;
}

}  // namespace prof::report
