// RFC 4180 CSV, streamed: begin(header) once, row(fields) per record, end(). Lines end with LF
// (not the RFC's CRLF); Python's csv module, spreadsheets and pandas read both.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>

#include "report/text_sink.hpp"

namespace prof::report {

// One field as RFC 4180 wants it: quoted when it holds a comma, quote, CR or LF, with quotes
// doubled. Bytes that are not UTF-8, and NUL, are written as the text \xNN (report/utf8.hpp), so
// the file is always valid UTF-8 text and distinct names stay distinct.
// A cell a spreadsheet would run as a formula (csv_formula_like) is neutralised as OWASP's
// CSV-injection guidance says: quoted, with a single quote before its text ("'=cmd|..."), so
// Excel, LibreOffice and Sheets show it as text. docs/formats.md tells scripts to drop that quote.
std::string csv_field(std::string_view text);

// True for text that starts with '=', '+', '-', '@', tab or CR and is not a plain decimal number
// ("-12" and "-0.5" are values and stay as they are).
bool csv_formula_like(std::string_view text);

class CsvWriter {
 public:
  explicit CsvWriter(TextSink& sink) : sink_(sink) {}
  void begin(std::initializer_list<std::string_view> header) { row(header); }
  // The header line from a column list of report/csv_columns.hpp (plain names, comma-separated).
  void begin_columns(std::string_view columns) {
    line_.assign(columns);
    line_.push_back('\n');
    sink_.write(line_);
  }
  void row(std::initializer_list<std::string_view> fields);
  void end() {}

 private:
  TextSink& sink_;
  std::string line_;
};

}  // namespace prof::report
