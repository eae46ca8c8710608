#include "report/json_escape.hpp"

#include <cstdint>
#include <cstring>

#include "report/utf8.hpp"

namespace prof::report {

namespace {

// Whether no byte of `text` needs escaping: none is a control character, non-ASCII,
// a quote or a backslash. Eight bytes at a time (this runs for every name of every event).
bool is_plain_json(std::string_view text) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto has_byte = [](uint64_t word, unsigned char c) {  // the classic zero-byte test on word ^ c
    const uint64_t x = word ^ (kOnes * c);
    return ((x - kOnes) & ~x & kHighs) != 0;
  };
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    // A byte below 0x20 or at/above 0x80: (byte - 0x20) borrows into bit 7, or bit 7 is set.
    if (((word - kOnes * 0x20) | word) & kHighs) return false;
    if (has_byte(word, '"') || has_byte(word, '\\')) return false;
  }
  for (; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  // Most names are printable ASCII with nothing to escape: append them in one go.
  if (is_plain_json(text)) {
    const size_t at = out.size();
    out.resize(at + text.size() + 2);  // one capacity check for the quotes and the text
    char* p = out.data() + at;
    *p++ = '"';
    if (!text.empty()) std::memcpy(p, text.data(), text.size());
    p[text.size()] = '"';
    return;
  }
  // Bytes that are not UTF-8 become the text \xNN first (report/utf8.hpp), so the string's value
  // is the name as every other output writes it, and two such names stay two.
  const std::string escaped = utf8_escaped(text);
  out.push_back('"');
  for (char ch : escaped) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20) {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

}  // namespace prof::report
