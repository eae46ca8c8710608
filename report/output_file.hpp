// One report file, never seen half-written: the text goes to `<final>.tmp-<pid>` in the same
// directory and is renamed over the final name only by commit(). A file that is destroyed
// without commit() removes its temp file, so a failed report leaves nothing behind.
#pragma once
#include <string>
#include <string_view>

#include "report/text_sink.hpp"

namespace prof::report {

class OutputFile final : public TextSink {
 public:
  // Throws ReportError naming the file when the final path is a symlink or the temp file cannot
  // be created (O_NOFOLLOW: a planted symlink is refused, never written through).
  explicit OutputFile(std::string final_path);
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

  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  void flush();
  [[noreturn]] void fail(std::string_view what, int error) const;

  std::string final_path_;
  std::string temp_path_;
  std::string buffer_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace prof::report
