#include "report/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/regular_file.hpp"
#include "report/report_error.hpp"

namespace prof::report {

namespace {
// Large writes: a 10M-event trace is gigabytes, and each write() is a system call.
}

// A path may be replaced when nothing is there, or a regular file that starts with `signature`
// (one of prof's own earlier outputs). The check reads through open_regular (O_NOFOLLOW,
// O_NONBLOCK, a regular file only), so neither a symlink nor a FIFO planted between the lstat and
// the read can redirect or hang it; rename() replaces a link, never its target.
void OutputFile::check_replaceable(const std::string& path, std::string_view signature) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISLNK(st.st_mode))
    throw ReportOutputError(path + ": refusing to write a report through a symbolic link");
  if (!S_ISREG(st.st_mode))
    throw ReportOutputError(path + ": exists and is not a regular file; not replacing it");
  if (signature.empty()) return;
  std::string head(signature.size(), '\0');
  int fd = open_regular(path.c_str(), O_RDONLY);
  ssize_t n = fd >= 0 ? ::read(fd, head.data(), head.size()) : -1;
  if (fd >= 0) ::close(fd);
  if (n != static_cast<ssize_t>(signature.size()) || head != signature)
    throw ReportOutputError(
        path + ": exists and is not a prof report; not replacing it (move it away or use -o)");
}

OutputFile::OutputFile(std::string final_path, std::string_view signature)
    : final_path_(std::move(final_path)),
      temp_path_(final_path_ + ".tmp-" + std::to_string(::getpid())) {
  open_temp(signature);
}

void OutputFile::open_temp(std::string_view signature) {
  check_replaceable(final_path_, signature);
  // O_EXCL: the temp file is always a new file of prof's own, so nothing planted at its name (a
  // FIFO whose open would block, a symlink, another user's file) is opened. What is there already
  // is removed only when it is a regular file of this user's (an earlier prof with this pid).
  for (int attempt = 0;; ++attempt) {
    fd_ = open_regular(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd_ >= 0) return;
    const int error = errno;
    struct stat st;
    if (error == EEXIST && attempt == 0 && ::lstat(temp_path_.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && ::unlink(temp_path_.c_str()) == 0)
      continue;
    if (error == EEXIST)
      throw ReportOutputError(
          temp_path_ + ": exists and is not a file prof made (planted?); not writing through it");
    throw ReportOutputError(final_path_ + ": cannot create: " + std::strerror(error));
  }
}

void OutputFile::set_flush_bytes(size_t bytes) {
  flush_bytes_ = bytes;
  if (buffer_.size() >= flush_bytes_) flush();
  buffer_.shrink_to_fit();
}

OutputFile::OutputFile(std::string final_path, std::string_view signature, Tolerant)
    : final_path_(std::move(final_path)),
      temp_path_(final_path_ + ".tmp-" + std::to_string(::getpid())),
      tolerant_(true) {
  try {
    open_temp(signature);
  } catch (const ReportOutputError& e) {
    refused_ = e.what();
    committed_ = true;  // no temp file of ours to remove (a planted one stays as it is)
  }
}

OutputFile::OutputFile(std::string final_path, Unwanted)
    : final_path_(std::move(final_path)), tolerant_(true), unwanted_(true) {
  committed_ = true;  // no temp file
}

void OutputFile::rename_final(std::string final_path, std::string_view signature) {
  if (tolerant_) {
    try {
      check_replaceable(final_path, signature);
    } catch (const ReportOutputError& e) {
      refused_ = e.what();
    }
    final_path_ = std::move(final_path);
    return;
  }
  check_replaceable(final_path, signature);
  final_path_ = std::move(final_path);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::fail(std::string_view what, int error) const {
  throw ReportOutputError(final_path_ + ": " + std::string(what) + ": " + std::strerror(error));
}

void OutputFile::write(std::string_view text) {
  bytes_written_ += static_cast<int64_t>(text.size());
  if (unwanted_ || (fd_ < 0 && !refused_.empty()))
    return;  // unwanted, refused or failed: nothing is kept
  buffer_.append(text);
  if (buffer_.size() >= flush_bytes_) flush();
}

void OutputFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      write_failed(errno);
      return;
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

// A tolerant file that cannot be written (a full disk, most often under a per-call report of
// gigabytes) costs only itself: it says why, removes its temp file at once (the space it held is
// what the smaller reports after it need) and drops the rest of its text. Before, the error
// ended the whole report set and every file, the small summaries too, was lost (issue 42).
void OutputFile::write_failed(int error) {
  if (!tolerant_) fail("cannot write", error);
  refused_ = final_path_ + ": cannot write: " + std::strerror(error);
  buffer_.clear();
  buffer_.shrink_to_fit();
  discard();
}

void OutputFile::finish() {
  if (fd_ < 0) return;
  flush();
  if (fd_ < 0) return;  // the flush failed: the file is gone
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) write_failed(errno);
}

void OutputFile::commit() {
  if (unwanted_) return;
  if (!refused_.empty()) {
    discard();
    return;
  }
  finish();
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0)
    fail("cannot rename the finished report into place", errno);
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
