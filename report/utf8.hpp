// Names come from the profiled program (kernel symbols, module names) and may hold any bytes.
// Every writer turns them into text the same way: each byte that is not part of a well-formed
// UTF-8 sequence is written as the four characters \xNN (lower-case hex), never replaced, so two
// kernels whose names differ only in such bytes stay two rows in every output, and the bytes can
// be read back (docs/formats.md, "Names").
//
// The escaping is reversible: a backslash is doubled where it would otherwise read as the start
// of an escape (before another backslash, before "x" and two hex digits, or "u" and four), and
// left alone elsewhere, so the names people meet (valid UTF-8 without such backslashes) are
// written exactly as they are. Reading back: "\\" is one backslash, "\xNN" the byte NN,
// "\uNNNN" the code point NNNN (terminal text only), any other backslash itself.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace prof::report {

inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at text[0] (1..4), or 0 when the first byte
// cannot start one here (stray continuation, overlong form, surrogate, above U+10FFFF, truncated).
size_t utf8_sequence_length(std::string_view text);

// The code point of a well-formed sequence of `length` bytes (utf8_sequence_length's answer).
uint32_t utf8_code_point(std::string_view text, size_t length);
// A hexadecimal digit's value, -1 for any other character.
int hex_value(char c);
// Appends code point `cp` (at most U+10FFFF) as UTF-8.
void append_code_point(std::string& out, uint32_t cp);

// Which well-formed characters are escaped too, besides the bytes that are not UTF-8.
enum class Escapes {
  kFile,      // NUL (\x00): CSV readers reject it. CSV, JSON and pftrace text.
  kTerminal,  // every C0 control and DEL (\xNN), the C1 controls, the bidi controls and U+2028/9
              // (\uNNNN): text for a terminal, which they would recolour, move or reorder.
  kMarkup,    // as kTerminal but tab and newline stay: HTML, which forbids the controls and
              // would let a right-to-left override reorder what a page shows as well.
};

// Appends `text` to `out` as described at the top; the result is always valid UTF-8.
void append_utf8_escaped(std::string& out, std::string_view text, Escapes escapes = Escapes::kFile);
std::string utf8_escaped(std::string_view text, Escapes escapes = Escapes::kFile);

// The bytes escaped text stands for ("\\" a backslash, "\xNN" a byte, "\uNNNN" a code point,
// any other backslash itself): what a name read from prof's own output (a run summary) was.
std::string utf8_unescaped(std::string_view text);

// Text from outside prof (names, paths, program arguments, messages that quote them) on its way to
// a terminal. The one function the cli and the reports use for that; the preload library, which
// has no std::string, keeps a fixed-buffer subset of the rule in common/env_value.hpp.
inline std::string terminal_escaped(std::string_view text) {
  return utf8_escaped(text, Escapes::kTerminal);
}

}  // namespace prof::report
