#include <catch2/catch.hpp>

#include <string>

#include "report/display_width.hpp"

using namespace prof::report;

TEST_CASE("code points take 0, 1 or 2 columns", "[report][width]") {
  CHECK(code_point_columns('a') == 1);
  CHECK(code_point_columns(0xE9) == 1);    // é
  CHECK(code_point_columns(0x3BB) == 1);   // λ
  CHECK(code_point_columns(0x300) == 0);   // combining grave accent
  CHECK(code_point_columns(0x20DD) == 0);  // combining enclosing circle (Me)
  CHECK(code_point_columns(0x200B) == 0);  // zero width space
  CHECK(code_point_columns(0x1100) == 2);  // Hangul choseong, the first wide range
  CHECK(code_point_columns(0x115F) == 2);
  CHECK(code_point_columns(0x1160) == 1);
  CHECK(code_point_columns(0x4E2D) == 2);   // 中
  CHECK(code_point_columns(0x3042) == 2);   // あ
  CHECK(code_point_columns(0xAC00) == 2);   // 가
  CHECK(code_point_columns(0xFF21) == 2);   // fullwidth A
  CHECK(code_point_columns(0xFF61) == 1);   // halfwidth ideographic full stop
  CHECK(code_point_columns(0x1F600) == 2);  // 😀
  CHECK(code_point_columns(0x2FFFD) == 2);  // unassigned in plane 2: wide by default
  CHECK(code_point_columns(0x3FFFD) == 2);
  CHECK(code_point_columns(0x40000) == 1);
  CHECK(code_point_columns(0x10FFFF) == 1);
}

TEST_CASE("display columns of UTF-8 text", "[report][width]") {
  CHECK(display_columns("") == 0);
  CHECK(display_columns("kernel") == 6);
  CHECK(display_columns("\xE4\xB8\xAD\xE6\x96\x87") == 4);  // 中文
  CHECK(display_columns("e\xCC\x81") == 1);                 // e + combining acute
  CHECK(display_columns("k_\xE3\x82\xAB\xE3\x83\xBC\xE3\x83\x8D\xE3\x83\xAB") == 10);  // k_カーネル
  CHECK(display_columns("\xFF") == 1);  // a stray byte counts one (never reaches a terminal raw)
}

TEST_CASE("text is cut to display columns, never inside a character", "[report][width]") {
  CHECK(fit_columns("abcdefghij", 10) == "abcdefghij");
  CHECK(fit_columns("abcdefghij", 8) == "abcde...");
  const std::string cjk =
      "\xE4\xB8\xAD\xE6\x96\x87\xE5\x90\x8D\xE5\xAD\x97";  // 中文名字: 8 columns
  CHECK(fit_columns(cjk, 8) == cjk);
  CHECK(fit_columns(cjk, 7) == "\xE4\xB8\xAD\xE6\x96\x87...");  // 4 + "..." = 7
  CHECK(fit_columns(cjk, 6) == "\xE4\xB8\xAD...");              // a wide char never half-kept
  CHECK(display_columns(fit_columns(cjk, 6)) == 5);
  CHECK(fit_columns("ae\xCC\x81"
                    "bcdef",
                    5) == "ae\xCC\x81...");  // the accent stays with its e
}

TEST_CASE("padding counts display columns", "[report][width]") {
  CHECK(pad_right("\xE4\xB8\xAD", 4) == "\xE4\xB8\xAD  ");
  CHECK(pad_left("\xE4\xB8\xAD", 4) == "  \xE4\xB8\xAD");
  CHECK(pad_right("e\xCC\x81", 3) == "e\xCC\x81  ");
  CHECK(pad_right("toolong", 3) == "toolong");
}
