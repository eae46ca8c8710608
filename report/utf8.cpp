#include "report/utf8.hpp"

namespace prof::report {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

bool is_hex(char c) { return hex_value(c) >= 0; }

// Whether `text` starts with `letter` and `digits` hex digits ("x1b", "u202e").
bool starts_code(std::string_view text, char letter, size_t digits) {
  if (text.size() < 1 + digits || text[0] != letter) return false;
  for (size_t i = 1; i <= digits; ++i)
    if (!is_hex(text[i])) return false;
  return true;
}

// Code points that make a terminal reorder or break the line it shows: the Bidi_Control
// characters (U+061C, U+200E-F, U+202A-E, U+2066-9) and the line and paragraph separators.
bool moves_terminal_text(uint32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

bool escaped_ascii(unsigned char c, Escapes escapes) {
  switch (escapes) {
    case Escapes::kFile: return c == 0;
    case Escapes::kMarkup: return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F;
    case Escapes::kTerminal: return c < 0x20 || c == 0x7F;
  }
  return false;
}

constexpr char kHex[] = "0123456789abcdef";

// The character (or stray byte) at text[0]: how many bytes it takes, and the escape it is written
// as ("" when it is written as it is). text is not empty.
struct Unit {
  size_t length;
  char code[7];  // "\xNN" or "\uNNNN", NUL-terminated; code[0] == 0 for none
};

Unit unit_at(std::string_view text, Escapes escapes) {
  Unit unit{1, {}};
  const auto b0 = static_cast<unsigned char>(text[0]);
  const size_t length = utf8_sequence_length(text);
  if (length == 0 || (length == 1 && escaped_ascii(b0, escapes))) {
    unit.code[0] = '\\', unit.code[1] = 'x';
    unit.code[2] = kHex[b0 >> 4], unit.code[3] = kHex[b0 & 15];
    return unit;
  }
  unit.length = length;
  if (length == 1 || escapes == Escapes::kFile) return unit;
  const uint32_t cp = utf8_code_point(text, length);
  if ((cp >= 0x80 && cp <= 0x9F) || moves_terminal_text(cp)) {
    unit.code[0] = '\\', unit.code[1] = 'u';
    for (int i = 0; i < 4; ++i) unit.code[2 + i] = kHex[(cp >> (12 - 4 * i)) & 15];
  }
  return unit;
}

// Whether a backslash followed by `rest` must be doubled so that it does not read as an escape.
bool backslash_needs_doubling(std::string_view rest, Escapes escapes) {
  if (rest.empty()) return false;
  if (rest[0] == '\\' || starts_code(rest, 'x', 2) || starts_code(rest, 'u', 4)) return true;
  return unit_at(rest, escapes).code[0] != 0;  // the next character becomes an escape
}

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

uint32_t utf8_code_point(std::string_view text, size_t length) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = static_cast<unsigned char>(text[0]) & kLeadMask[length];
  for (size_t i = 1; i < length; ++i) cp = cp << 6 | (static_cast<unsigned char>(text[i]) & 0x3F);
  return cp;
}

void append_utf8_escaped(std::string& out, std::string_view text, Escapes escapes) {
  size_t i = 0;
  while (i < text.size()) {
    // Runs of printable ASCII are the common case: copy them in one append.
    size_t run = i;
    while (run < text.size()) {
      const auto c = static_cast<unsigned char>(text[run]);
      if (c >= 0x80 || c == '\\' || escaped_ascii(c, escapes)) break;
      ++run;
    }
    out.append(text, i, run - i);
    i = run;
    if (i == text.size()) break;
    if (text[i] == '\\') {
      out.append(backslash_needs_doubling(text.substr(i + 1), escapes) ? "\\\\" : "\\");
      ++i;
      continue;
    }
    const Unit unit = unit_at(text.substr(i), escapes);
    if (unit.code[0] != 0)
      out.append(unit.code);
    else
      out.append(text, i, unit.length);
    i += unit.length;
  }
}

std::string utf8_unescaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i + 1);
    if (text[i] != '\\' || rest.empty()) {
      out.push_back(text[i]);
    } else if (rest[0] == '\\') {
      out.push_back('\\');
      ++i;
    } else if (starts_code(rest, 'x', 2)) {
      out.push_back(static_cast<char>(hex_value(rest[1]) << 4 | hex_value(rest[2])));
      i += 3;
    } else if (starts_code(rest, 'u', 4)) {
      uint32_t cp = 0;
      for (size_t k = 1; k <= 4; ++k) cp = cp << 4 | static_cast<uint32_t>(hex_value(rest[k]));
      append_code_point(out, cp);
      i += 5;
    } else {
      out.push_back('\\');
    }
  }
  return out;
}

std::string utf8_escaped(std::string_view text, Escapes escapes) {
  std::string out;
  out.reserve(text.size());
  append_utf8_escaped(out, text, escapes);
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_code_point(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | cp >> 6));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | cp >> 12));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | cp >> 18));
    out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace prof::report
