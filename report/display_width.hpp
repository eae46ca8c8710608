// Columns on a terminal: the summary and compare's text table line up by what a terminal shows,
// not by bytes or code points. A CJK character takes two columns, a combining accent none.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace prof::report {

// 2 for East Asian Wide and Fullwidth (UAX #11), 0 for combining marks (Mn, Me) and the
// zero-width format characters, 1 for everything else. Control characters never reach a
// terminal unescaped (Escapes::kTerminal), so they are not given a width of their own.
int code_point_columns(uint32_t cp);

// The columns `text` takes; a byte that is not UTF-8 counts as one (callers pass escaped text).
size_t display_columns(std::string_view text);

// `text` cut to at most `columns` columns, ending in "..." when cut; never splits a character,
// and keeps the combining marks of the last character kept.
std::string fit_columns(std::string_view text, size_t columns);

// Spaces after (pad_right) or before (pad_left) `text` up to `columns` display columns.
std::string pad_right(std::string text, size_t columns);
std::string pad_left(const std::string& text, size_t columns);

}  // namespace prof::report
