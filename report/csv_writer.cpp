#include "report/csv_writer.hpp"

#include "report/utf8.hpp"

namespace prof::report {

std::string csv_field(std::string_view text) {
  std::string repaired;
  repaired.reserve(text.size());
  // NUL is replaced too: csv readers (Python's among them) reject it.
  for (size_t start = 0; start <= text.size();) {
    size_t nul = text.find('\0', start);
    append_utf8_repaired(repaired, text.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    repaired.append(kReplacementChar);
    start = nul + 1;
  }
  if (repaired.find_first_of(",\"\r\n") == std::string::npos) return repaired;
  std::string quoted;
  quoted.reserve(repaired.size() + 2);
  quoted.push_back('"');
  for (char c : repaired) {
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
