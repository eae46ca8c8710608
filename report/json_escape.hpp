// JSON string literals for any bytes: the result is always valid JSON (RFC 8259), whatever the
// profiled program named its kernels.
#pragma once
#include <string>
#include <string_view>

namespace prof::report {

// Appends `text` as a quoted JSON string: quote and backslash are escaped, control characters
// (U+0001..U+001F) become \u00XX; NUL and bytes that are not UTF-8 become the text \xNN first
// (utf8_escaped, so the string's value is "\\xNN" in JSON); everything else is kept.
void append_json_string(std::string& out, std::string_view text);
std::string json_string(std::string_view text);

}  // namespace prof::report
