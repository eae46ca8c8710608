// Text and links for the HTML report, from names that may hold any bytes (C++ template kernel
// names hold '<', '>', '&' and quotes; symbols may hold invalid UTF-8).
#pragma once
#include <string>
#include <string_view>

namespace prof::report {

// Text safe in an HTML element or a quoted attribute: & < > " ' as character references, bytes
// that are not UTF-8 and control characters (other than tab and newline) as the text \xNN, C1,
// bidi and separator characters as \uNNNN (report/utf8.hpp, Escapes::kMarkup), so names that
// differ only there stay distinct and none reorders the page.
void append_html_escaped(std::string& out, std::string_view text);
std::string html_escaped(std::string_view text);
// The same, cut to `most_columns` display columns ("..." at the end when cut): labels in charts.
std::string html_escaped(std::string_view text, size_t most_columns);

// A file name as a relative URL of the same directory: every byte but A-Z a-z 0-9 - . _ ~
// percent-encoded ("a b#1.json" -> "a%20b%231.json"), so no name is read as a path, query,
// fragment or scheme ("c:x.json" -> "c%3Ax.json").
std::string url_file_name(std::string_view file_name);

}  // namespace prof::report
