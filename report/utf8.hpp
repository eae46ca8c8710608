// Names come from the profiled program (kernel symbols, module names) and may hold any bytes.
// Every writer repairs them the same way: each byte that is not part of a well-formed UTF-8
// sequence becomes U+FFFD, so the same name reads the same in the CSV, the JSON and the summary.
#pragma once
#include <string>
#include <string_view>

namespace prof::report {

inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at text[0] (1..4), or 0 when the first byte
// cannot start one here (stray continuation, overlong form, surrogate, above U+10FFFF, truncated).
size_t utf8_sequence_length(std::string_view text);

// Appends `text` to `out`, replacing each invalid byte with U+FFFD.
void append_utf8_repaired(std::string& out, std::string_view text);
std::string utf8_repaired(std::string_view text);

}  // namespace prof::report
