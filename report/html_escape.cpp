#include "report/html_escape.hpp"

#include "report/utf8.hpp"

namespace prof::report {

void append_html_escaped(std::string& out, std::string_view text) {
  const std::string repaired = utf8_repaired(text);
  for (char ch : repaired) {
    switch (ch) {
      case '&': out.append("&amp;"); break;
      case '<': out.append("&lt;"); break;
      case '>': out.append("&gt;"); break;
      case '"': out.append("&quot;"); break;
      case '\'': out.append("&#39;"); break;
      case '\t':
      case '\n': out.push_back(ch); break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F)
          out.append(kReplacementChar);
        else
          out.push_back(ch);
    }
  }
}

std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_html_escaped(out, text);
  return out;
}

std::string url_file_name(std::string_view file_name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : file_name) {
    auto c = static_cast<unsigned char>(ch);
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '.' || c == '_' || c == '~';
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
