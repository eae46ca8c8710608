// Text and links for the HTML report, from names that may hold any bytes (C++ template kernel
// names hold '<', '>', '&' and quotes; symbols may hold invalid UTF-8).
#pragma once
#include <string>
#include <string_view>

namespace prof::report {

// Text safe in an HTML element or a quoted attribute: & < > " ' as character references,
// invalid UTF-8 bytes and control characters (other than tab and newline) as U+FFFD.
void append_html_escaped(std::string& out, std::string_view text);
std::string html_escaped(std::string_view text);

// A file name as a relative URL of the same directory: every byte but A-Z a-z 0-9 - . _ ~
// percent-encoded ("a b#1.json" -> "a%20b%231.json"), so no name is read as a path, query,
// fragment or scheme ("c:x.json" -> "c%3Ax.json").
std::string url_file_name(std::string_view file_name);

}  // namespace prof::report
