#include "report/html_escape.hpp"

#include "report/display_width.hpp"
#include "report/utf8.hpp"

namespace prof::report {

namespace {

// `text` is already valid UTF-8 without control characters (Escapes::kMarkup).
void append_references(std::string& out, std::string_view text) {
  for (char ch : text) {
    switch (ch) {
      case '&': out.append("&amp;"); break;
      case '<': out.append("&lt;"); break;
      case '>': out.append("&gt;"); break;
      case '"': out.append("&quot;"); break;
      case '\'': out.append("&#39;"); break;
      default: out.push_back(ch);
    }
  }
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  append_references(out, utf8_escaped(text, Escapes::kMarkup));
}

std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_html_escaped(out, text);
  return out;
}

std::string html_escaped(std::string_view text, size_t most_columns) {
  std::string out;
  append_references(out, fit_columns(utf8_escaped(text, Escapes::kMarkup), most_columns));
  return out;
}

std::string url_file_name(std::string_view file_name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : file_name) {
    auto c = static_cast<unsigned char>(ch);
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace prof::report
