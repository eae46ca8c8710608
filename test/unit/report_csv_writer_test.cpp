#include <catch2/catch.hpp>

#include "report/csv_writer.hpp"

using namespace prof::report;

TEST_CASE("CSV fields are quoted only when RFC 4180 needs it", "[report][csv]") {
  CHECK(csv_field("") == "");
  CHECK(csv_field("hipMemcpy") == "hipMemcpy");
  CHECK(csv_field("void k<int, 2>()") == "\"void k<int, 2>()\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\rhere") == "\"cr\rhere\"");
  CHECK(csv_field("tab\tand\\backslash") == "tab\tand\\backslash");
}

TEST_CASE("CSV fields repair invalid UTF-8 and NUL", "[report][csv]") {
  CHECK(csv_field("k\xFF") == "k\\xff");
  CHECK(csv_field(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(csv_field("\xFF,") == "\"\\xff,\"");
  CHECK(csv_field("bad\xFF\xFE") != csv_field("bad\xFE\xFF"));
}

TEST_CASE("CsvWriter writes the header and rows with LF line ends", "[report][csv]") {
  StringSink sink;
  CsvWriter csv(sink);
  csv.begin({"Name", "Calls"});
  csv.row({"a,b", "1"});
  csv.row({"plain", "22"});
  csv.end();
  CHECK(sink.text() == "Name,Calls\n\"a,b\",1\nplain,22\n");
}

TEST_CASE("CSV cells a spreadsheet would run as a formula are neutralised", "[report][csv]") {
  // OWASP's CSV-injection rule: a leading ' inside the quotes makes the cell text.
  CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_field("+cmd|' /C calc'!A0") == "\"'+cmd|' /C calc'!A0\"");
  CHECK(csv_field("-2+3") == "\"'-2+3\"");
  CHECK(csv_field("@SUM(A1)") == "\"'@SUM(A1)\"");
  CHECK(csv_field("\tleading tab") == "\"'\tleading tab\"");
  CHECK(csv_field("\rleading cr") == "\"'\rleading cr\"");
  CHECK(csv_field("=a,b") == "\"'=a,b\"");
  // Only the first character matters, and numbers are values, not formulas.
  CHECK(csv_field("a=b") == "a=b");
  CHECK(csv_field("-12") == "-12");
  CHECK(csv_field("-0.5") == "-0.5");
  CHECK(csv_field("12.25") == "12.25");
  CHECK(csv_field("-") == "\"'-\"");
  CHECK(csv_field("-1.") == "\"'-1.\"");
  CHECK(csv_field("-1e5") == "\"'-1e5\"");
  CHECK(csv_formula_like("=1"));
  CHECK_FALSE(csv_formula_like("-7"));
  CHECK_FALSE(csv_formula_like(""));
}
