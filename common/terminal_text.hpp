// Text from outside prof (program arguments, file names, names the program registered) on its way
// to a terminal: control characters and DEL become \xNN, so a planted name cannot move the cursor,
// retitle the window or hide a line. (The preload library, which has no std::string, has its own
// fixed-buffer copy of the rule in common/env_value.hpp.)
#pragma once
#include <string>
#include <string_view>

namespace prof {

inline std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    static const char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

}  // namespace prof
