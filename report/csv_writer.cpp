#include "report/csv_writer.hpp"

#include "report/utf8.hpp"

namespace prof::report {

namespace {

// A plain decimal number ("-12", "3.5"): a value, not a formula, whatever its sign.
bool is_number(std::string_view text) {
  size_t i = text.front() == '-' ? 1 : 0;
  bool digits = false, point = false;
  for (; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9')
      digits = true;
    else if (text[i] == '.' && !point && digits)
      point = true;
    else
      return false;
  }
  return digits && text.back() != '.';
}

}  // namespace

bool csv_formula_like(std::string_view text) {
  if (text.empty()) return false;
  const char first = text.front();
  return (first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' ||
          first == '\r') &&
         !is_number(text);
}

std::string csv_field(std::string_view text) {
  // NUL is escaped too (Escapes::kFile): csv readers (Python's among them) reject it.
  const std::string escaped = utf8_escaped(text);
  const bool formula = csv_formula_like(escaped);
  if (!formula && escaped.find_first_of(",\"\r\n") == std::string::npos) return escaped;
  std::string quoted;
  quoted.reserve(escaped.size() + 3);
  quoted.push_back('"');
  if (formula) quoted.push_back('\'');
  for (char c : escaped) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

void CsvWriter::row(std::initializer_list<std::string_view> fields) {
  line_.clear();
  bool first = true;
  for (std::string_view field : fields) {
    if (!first) line_.push_back(',');
    first = false;
    line_.append(csv_field(field));
  }
  line_.push_back('\n');
  sink_.write(line_);
}

}  // namespace prof::report
