// One report file, never seen half-written: the text goes to `<final>.tmp-<pid>` in the same
// directory and is renamed over the final name only by commit(). A file that is destroyed
// without commit() removes its temp file, so a failed report leaves nothing behind.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "report/text_sink.hpp"

namespace prof::report {

class OutputFile final : public TextSink {
 public:
  // Throws ReportOutputError naming the file when the final path is a symlink, is an existing
  // file that does not start with `signature` (prof replaces only its own outputs), or the temp
  // file cannot be created (O_NOFOLLOW: a planted symlink is refused, never written through).
  // An empty signature accepts any existing regular file.
  explicit OutputFile(std::string final_path, std::string_view signature = {});
  // The same, but a refusal does not throw: the file is kept as refused() (one line naming it and
  // why), writes are dropped, and commit() does nothing. A report set writes its other files.
  struct Tolerant {};
  OutputFile(std::string final_path, std::string_view signature, Tolerant);
  // An output the user did not ask for (--output-format): the writers write to it as to any
  // other, and nothing reaches the disk.
  struct Unwanted {};
  OutputFile(std::string final_path, Unwanted);
  bool unwanted() const { return unwanted_; }
  ~OutputFile() override;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text) override;
  // Flushes and closes the temp file; it is still not visible under the final name.
  void finish();
  // Renames the finished temp file over the final name.
  void commit();
  // Removes the temp file (no-op once committed).
  void discard() noexcept;
  // Chooses another final name before commit() (a split JSON's parts are named at the end);
  // the new name is checked like the constructor's.
  void rename_final(std::string final_path, std::string_view signature);
  // Why this file is not written ("" while it is); set by a Tolerant constructor or rename_final,
  // or by a write that failed (a tolerant file then drops its text and removes its temp file).
  const std::string& refused() const { return refused_; }
  int64_t bytes_written() const { return bytes_written_; }
  // Writes reach the file in chunks of this many bytes (1 MiB by default); a timeline split into
  // many parts gives each a smaller buffer, so memory does not grow with the number of parts.
  void set_flush_bytes(size_t bytes);

  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  void flush();
  void open_temp(std::string_view signature);
  [[noreturn]] void fail(std::string_view what, int error) const;
  void write_failed(int error);
  static void check_replaceable(const std::string& path, std::string_view signature);

  std::string final_path_;
  std::string temp_path_;
  std::string buffer_;
  size_t flush_bytes_ = size_t{1} << 20;
  int64_t bytes_written_ = 0;
  int fd_ = -1;
  bool committed_ = false;
  bool tolerant_ = false;
  bool unwanted_ = false;
  std::string refused_;
};

}  // namespace prof::report
