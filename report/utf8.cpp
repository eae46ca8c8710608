#include "report/utf8.hpp"

namespace prof::report {

namespace {
bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

// The ranges are Table 3-7 of the Unicode standard ("well-formed UTF-8 byte sequences"): the
// second byte's range is narrowed for E0, ED, F0 and F4 to exclude overlongs, surrogates and
// code points above U+10FFFF.
size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) return 0;
  auto b0 = static_cast<unsigned char>(text[0]);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  auto b1 = static_cast<unsigned char>(text[1]);
  if (b1 < lo || b1 > hi) return 0;
  for (size_t i = 2; i < length; ++i)
    if (!is_continuation(static_cast<unsigned char>(text[i]))) return 0;
  return length;
}

void append_utf8_repaired(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    // Runs of ASCII are the common case: copy them in one append.
    size_t run = i;
    while (run < text.size() && static_cast<unsigned char>(text[run]) < 0x80) ++run;
    if (run > i) {
      out.append(text.substr(i, run - i));
      i = run;
      continue;
    }
    size_t length = utf8_sequence_length(text.substr(i));
    if (length == 0) {
      out.append(kReplacementChar);
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
}

std::string utf8_repaired(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_utf8_repaired(out, text);
  return out;
}

}  // namespace prof::report
