// libFuzzer: the CSV field and JSON string escapers against a strict reader of each format.
// A CSV field must read back as the exact text (RFC 4180); a JSON string must be a valid JSON
// string literal (no raw control characters, only JSON escapes) that reads back to the text.
// Bytes that are not UTF-8, and NUL, come back as the text \xNN (report/utf8.hpp): read back
// with utf8_unescaped, every input is exact, so no two names ever meet.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "report/csv_writer.hpp"
#include "report/json_escape.hpp"
#include "report/utf8.hpp"

namespace {

std::string read_csv_field(std::string_view f) {
  if (f.empty() || f.front() != '"') {
    for (char c : f)
      if (c == '"' || c == ',' || c == '\n' || c == '\r') std::abort();  // needed quoting
    return std::string(f);
  }
  if (f.size() < 2 || f.back() != '"') std::abort();
  std::string out;
  for (size_t i = 1; i + 1 < f.size(); ++i) {
    if (f[i] == '"') {
      if (i + 2 >= f.size() || f[i + 1] != '"') std::abort();  // a lone quote inside
      ++i;
    }
    out.push_back(f[i]);
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t hex4(std::string_view s, size_t at) {
  if (at + 4 > s.size()) std::abort();
  uint32_t v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    const char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<uint32_t>(c - 'A' + 10);
    else
      std::abort();
  }
  return v;
}

std::string read_json_string(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') std::abort();
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20) std::abort();  // raw control character
    if (c == '"') std::abort();  // unescaped quote
    if (c != '\\') {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (++i + 1 >= s.size() + 1) std::abort();
    switch (s[i]) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp = hex4(s, i + 1);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < s.size() && s[i + 1] == '\\' &&
            s[i + 2] == 'u') {
          const uint32_t low = hex4(s, i + 3);
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, cp);
        break;
      }
      default: std::abort();  // not a JSON escape
    }
  }
  return out;
}

// Strict (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80)
      n = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The writers escape stray bytes and NUL (CSV readers reject it): what comes back is valid
  // UTF-8 without NUL, and reads back to the exact input.
  std::string csv_back = read_csv_field(prof::report::csv_field(text));
  // A cell a spreadsheet would run comes back with OWASP's leading quote (docs/formats.md).
  if (prof::report::csv_formula_like(text)) {
    if (csv_back.empty() || csv_back.front() != '\'') std::abort();
    csv_back.erase(0, 1);
  }
  if (!valid_utf8(csv_back) || csv_back.find('\0') != std::string::npos) std::abort();
  if (prof::report::utf8_unescaped(csv_back) != text) std::abort();
  const std::string json = prof::report::json_string(text);
  const std::string back = read_json_string(json);
  if (!valid_utf8(back) || prof::report::utf8_unescaped(back) != text) std::abort();
  // Valid UTF-8 without a backslash is written as it is.
  if (valid_utf8(text) &&
      text.find_first_of(std::string_view("\\\0", 2)) == std::string_view::npos && back != text)
    std::abort();
  return 0;
}
