#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "report/json_escape.hpp"
#include "report/utf8.hpp"

using namespace prof::report;

namespace {
const std::string kFffd = "\xEF\xBF\xBD";
}

TEST_CASE("valid UTF-8 passes through unchanged", "[report][utf8]") {
  for (std::string text : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF",
                           "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBD"})
    CHECK(utf8_repaired(text) == text);
}

TEST_CASE("each invalid byte becomes one U+FFFD", "[report][utf8]") {
  CHECK(utf8_repaired("a\xFF" "b") == "a" + kFffd + "b");
  CHECK(utf8_repaired("\x80") == kFffd);                               // stray continuation
  CHECK(utf8_repaired("\xC0\xAF") == kFffd + kFffd);                   // overlong '/'
  CHECK(utf8_repaired("\xE0\x80\xAF") == kFffd + kFffd + kFffd);       // overlong 3-byte
  CHECK(utf8_repaired("\xED\xA0\x80") == kFffd + kFffd + kFffd);       // surrogate U+D800
  CHECK(utf8_repaired("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  CHECK(utf8_repaired("\xE2\x82") == kFffd + kFffd);                   // truncated at the end
  CHECK(utf8_repaired("\xE2\x82x") == kFffd + kFffd + "x");            // truncated in the middle
  CHECK(utf8_repaired("\xF5\xF8\xFE") == kFffd + kFffd + kFffd);
}

TEST_CASE("JSON strings escape quotes, backslashes and control characters", "[report][json]") {
  CHECK(json_string("") == "\"\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("l1\nl2\tx\r") == "\"l1\\u000al2\\u0009x\\u000d\"");
  CHECK(json_string(std::string("nul\0end", 7)) == "\"nul\\u0000end\"");
  CHECK(json_string("\x1F\x7F") == "\"\\u001f\x7F\"");
  CHECK(json_string("void k<int, \"x\">()") == "\"void k<int, \\\"x\\\">()\"");
}

TEST_CASE("JSON strings: a byte to escape is found at every position of a long name", "[report][json]") {
  // The check for a plain name reads eight bytes at a time: try each byte lane, and the tail.
  const std::pair<char, std::string> cases[] = {{'"', "\\\""},   {'\\', "\\\\"}, {'\x01', "\\u0001"},
                                                {'\x1f', "\\u001f"}, {'\x7f', "\x7f"},   {' ', " "},
                                                {'\x80', kFffd}};
  for (size_t length : {1, 7, 8, 9, 16, 23}) {
    for (size_t at = 0; at < length; ++at) {
      for (const auto& [byte, escaped] : cases) {
        std::string text(length, 'a');
        text[at] = byte;
        const std::string expected = "\"" + std::string(at, 'a') + escaped + std::string(length - at - 1, 'a') + "\"";
        CHECK(json_string(text) == expected);
      }
    }
  }
}

TEST_CASE("JSON strings keep valid UTF-8 and replace invalid bytes", "[report][json]") {
  CHECK(json_string("\xCE\xBB-kernel") == "\"\xCE\xBB-kernel\"");
  CHECK(json_string("k\xFE\"") == "\"k" + kFffd + "\\\"\"");
}
