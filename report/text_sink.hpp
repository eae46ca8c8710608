// Where a writer's text goes: an output file in the report, a string in the tests. Writers only
// append, so a sink can stream to disk and memory stays flat however long the trace is.
#pragma once
#include <string>
#include <string_view>

namespace prof::report {

class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void write(std::string_view text) = 0;
};

class StringSink final : public TextSink {
 public:
  void write(std::string_view text) override { text_.append(text); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace prof::report
