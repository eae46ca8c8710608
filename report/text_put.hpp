// Text written through a pointer into a buffer sized beforehand for the whole line: the hot loops
// of the trace CSVs and the timeline append a dozen short pieces per event, and a std::string
// append checks its capacity and calls memcpy for each.
#pragma once
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace prof::report {

inline char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}
inline char* put_int(char* p, int64_t value) { return std::to_chars(p, p + 24, value).ptr; }
inline constexpr size_t kIntChars = 20;  // the most put_int writes

// A reused buffer for one line at a time.
class LineBuffer {
 public:
  // The buffer, at least `most` bytes long.
  char* at_least(size_t most) {
    if (data_.size() < most) data_.resize(std::max(most, 2 * data_.size()));
    return data_.data();
  }
  // The text from the buffer's start to `end`.
  std::string_view text(const char* end) const {
    return std::string_view(data_.data(), static_cast<size_t>(end - data_.data()));
  }

 private:
  std::vector<char> data_;
};

}  // namespace prof::report
