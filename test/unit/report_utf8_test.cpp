#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "report/json_escape.hpp"
#include "report/utf8.hpp"

using namespace prof::report;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool hex_digits(const std::string& text, size_t at, size_t n) {
  if (at + n > text.size()) return false;
  for (size_t i = at; i < at + n; ++i)
    if (hex_value(text[i]) < 0) return false;
  return true;
}

// The reading back that docs/formats.md describes, written independently of the escaper: "\\" is
// a backslash, "\xNN" the byte, "\uNNNN" the code point, any other backslash itself.
std::string unescaped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
    } else if (text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (text[i + 1] == 'x' && hex_digits(text, i + 2, 2)) {
      out += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
      i += 3;
    } else if (text[i + 1] == 'u' && hex_digits(text, i + 2, 4)) {
      uint32_t cp = 0;
      for (size_t k = 0; k < 4; ++k)
        cp = cp * 16 + static_cast<uint32_t>(hex_value(text[i + 2 + k]));
      if (cp < 0x800) {
        out += static_cast<char>(0xC0 | cp >> 6);
      } else {
        out += static_cast<char>(0xE0 | cp >> 12);
        out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      }
      out += static_cast<char>(0x80 | (cp & 0x3F));
      i += 5;
    } else {
      out += '\\';
    }
  }
  return out;
}

bool valid_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(std::string_view(text).substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("valid UTF-8 passes through unchanged", "[report][utf8]") {
  for (std::string text :
       {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF",
        "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBD", "a\\b", "C:\\dir\\file", "ends\\"})
    CHECK(utf8_escaped(text) == text);
}

TEST_CASE("each invalid byte becomes the text \\xNN", "[report][utf8]") {
  CHECK(utf8_escaped("a\xFF"
                     "b") == "a\\xffb");
  CHECK(utf8_escaped("\x80") == "\\x80");                             // stray continuation
  CHECK(utf8_escaped("\xC0\xAF") == "\\xc0\\xaf");                    // overlong '/'
  CHECK(utf8_escaped("\xE0\x80\xAF") == "\\xe0\\x80\\xaf");           // overlong 3-byte
  CHECK(utf8_escaped("\xED\xA0\x80") == "\\xed\\xa0\\x80");           // surrogate U+D800
  CHECK(utf8_escaped("\xF4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  CHECK(utf8_escaped("\xE2\x82") == "\\xe2\\x82");                    // truncated at the end
  CHECK(utf8_escaped("\xE2\x82x") == "\\xe2\\x82x");                  // truncated in the middle
  CHECK(utf8_escaped(std::string("nul\0", 4)) == "nul\\x00");
}

TEST_CASE("names that differ only in invalid bytes stay distinct", "[report][utf8]") {
  // The issue-42 pair: replacing each bad byte with U+FFFD made both "bad\uFFFD\uFFFD".
  CHECK(utf8_escaped("bad\xFF\xFE") == "bad\\xff\\xfe");
  CHECK(utf8_escaped("bad\xFE\xFF") == "bad\\xfe\\xff");
  for (Escapes escapes : {Escapes::kFile, Escapes::kMarkup, Escapes::kTerminal})
    CHECK(utf8_escaped("bad\xFF\xFE", escapes) != utf8_escaped("bad\xFE\xFF", escapes));
}

TEST_CASE("a backslash is doubled only where it would read as an escape", "[report][utf8]") {
  CHECK(utf8_escaped("bad\\xff") == "bad\\\\xff");  // the text, not the byte
  CHECK(utf8_escaped("a\\u202e") == "a\\\\u202e");
  CHECK(utf8_escaped("a\\\\b") == "a\\\\\\b");     // the first of two
  CHECK(utf8_escaped("a\\\xFF") == "a\\\\\\xff");  // before a byte that becomes an escape
  CHECK(utf8_escaped("a\\xg1") == "a\\xg1");       // not hex: stays as it is
  CHECK(utf8_escaped("a\\u12") == "a\\u12");
}

TEST_CASE("escaping reads back to the same bytes, so distinct names never meet", "[report][utf8]") {
  const std::string names[] = {"bad\xFF\xFE",
                               "bad\xFE\xFF",
                               "bad\\xff\\xfe",
                               "bad\\\xFF\\xfe",
                               "\\",
                               "\\\\",
                               "\\\\\\x41",
                               "\\x4",
                               "\\u202e",
                               "\xE2\x80\xAE",
                               "\\\xE2\x80\xAE",
                               std::string("\\\0", 2),
                               "\x1b[31m",
                               "\\\x1b",
                               "\xC2\x85",
                               "\\\xC2\x9B",
                               "a\xE2\x80\xA8"
                               "b",
                               "k\xF0\x9F\x98",
                               "\xE4\xB8\xAD\xE6\x96\x87\xFF"};
  for (Escapes escapes : {Escapes::kFile, Escapes::kMarkup, Escapes::kTerminal}) {
    for (const std::string& name : names) {
      const std::string escaped = utf8_escaped(name, escapes);
      INFO(escaped);
      CHECK(valid_utf8(escaped));
      CHECK(unescaped(escaped) == name);
      CHECK(utf8_unescaped(escaped) == name);
    }
  }
}

TEST_CASE("terminal text escapes what would recolour, move or reorder a terminal",
          "[report][utf8]") {
  CHECK(terminal_escaped("a\x1b[31mred") == "a\\x1b[31mred");
  CHECK(terminal_escaped("l1\nl2\t\r\x7F") == "l1\\x0al2\\x09\\x0d\\x7f");
  CHECK(terminal_escaped("\xC2\x9B"
                         "2J") == "\\u009b2J");                                // C1 CSI
  CHECK(terminal_escaped("\xC2\x85") == "\\u0085");                            // NEL
  CHECK(terminal_escaped("evil\xE2\x80\xAEgpj.exe") == "evil\\u202egpj.exe");  // RLO
  CHECK(terminal_escaped("a\xE2\x80\xA8"
                         "b\xE2\x80\xA9"
                         "c") == "a\\u2028b\\u2029c");
  CHECK(terminal_escaped("\xE2\x81\xA6x\xE2\x81\xA9") == "\\u2066x\\u2069");  // isolates
  CHECK(terminal_escaped("\xD8\x9C\xE2\x80\x8E\xE2\x80\x8F") == "\\u061c\\u200e\\u200f");
  // What stays: printable text, CJK, accents, and what files keep but a terminal must not see.
  const std::string kept = "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xC2\xA0";  // café 中文 NBSP
  CHECK(terminal_escaped(kept) == kept);
  CHECK(utf8_escaped("a\x1b"
                     "b\xE2\x80\xAE") ==
        "a\x1b"
        "b\xE2\x80\xAE");
  CHECK(utf8_escaped("a\tb\x01", Escapes::kMarkup) == "a\tb\\x01");
  CHECK(utf8_escaped("a\n\xE2\x80\xAE", Escapes::kMarkup) == "a\n\\u202e");
}

TEST_CASE("JSON strings escape quotes, backslashes and control characters", "[report][json]") {
  CHECK(json_string("") == "\"\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("l1\nl2\tx\r") == "\"l1\\u000al2\\u0009x\\u000d\"");
  CHECK(json_string(std::string("nul\0end", 7)) == "\"nul\\\\x00end\"");
  CHECK(json_string("\x1F\x7F") == "\"\\u001f\x7F\"");
  CHECK(json_string("void k<int, \"x\">()") == "\"void k<int, \\\"x\\\">()\"");
}

TEST_CASE("JSON strings: a byte to escape is found at every position of a long name",
          "[report][json]") {
  // The check for a plain name reads eight bytes at a time: try each byte lane, and the tail.
  const std::pair<char, std::string> cases[] = {
      {'"', "\\\""},    {'\\', "\\\\"}, {'\x01', "\\u0001"}, {'\x1f', "\\u001f"},
      {'\x7f', "\x7f"}, {' ', " "},     {'\x80', "\\\\x80"}};
  for (size_t length : {1, 7, 8, 9, 16, 23}) {
    for (size_t at = 0; at < length; ++at) {
      for (const auto& [byte, escaped] : cases) {
        std::string text(length, 'a');
        text[at] = byte;
        const std::string expected =
            "\"" + std::string(at, 'a') + escaped + std::string(length - at - 1, 'a') + "\"";
        CHECK(json_string(text) == expected);
      }
    }
  }
}

TEST_CASE("JSON strings keep valid UTF-8 and write invalid bytes as \\\\xNN", "[report][json]") {
  CHECK(json_string("\xCE\xBB-kernel") == "\"\xCE\xBB-kernel\"");
  CHECK(json_string("k\xFE\"") == "\"k\\\\xfe\\\"\"");
  CHECK(json_string("bad\xFF\xFE") == "\"bad\\\\xff\\\\xfe\"");
  CHECK(json_string("bad\xFF\xFE") != json_string("bad\xFE\xFF"));
  CHECK(json_string("bad\\xff") ==
        "\"bad\\\\\\\\xff\"");  // the text \xff: its backslash doubled first
}
