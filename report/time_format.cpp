#include "report/time_format.hpp"

#include <charconv>
#include <cstdio>

namespace prof::report {

namespace {

// value / 10^3 with three decimals; `unsigned __int128` keeps INT64_MIN representable.
// Written once per timestamp of the trace: to_chars, not printf.
std::string fixed3(unsigned __int128 magnitude, bool negative) {
  auto whole = static_cast<unsigned long long>(magnitude / 1000);
  auto frac = static_cast<unsigned>(magnitude % 1000);
  char text[48];
  char* end = text;
  if (negative) *end++ = '-';
  end = std::to_chars(end, text + sizeof text, whole).ptr;
  *end++ = '.';
  *end++ = static_cast<char>('0' + frac / 100);
  *end++ = static_cast<char>('0' + frac / 10 % 10);
  *end++ = static_cast<char>('0' + frac % 10);
  return std::string(text, end);
}

unsigned __int128 magnitude_of(int64_t value) {
  return value < 0 ? static_cast<unsigned __int128>(-static_cast<__int128>(value))
                   : static_cast<unsigned __int128>(value);
}

}  // namespace

std::string ns_to_us_text(int64_t ns) { return fixed3(magnitude_of(ns), ns < 0); }

std::string human_duration(int64_t ns) {
  unsigned __int128 m = magnitude_of(ns);
  bool negative = ns < 0;
  if (m < 1000)
    return (negative ? "-" : "") + std::to_string(static_cast<unsigned long long>(m)) + " ns";
  // Round to the three shown decimals of the chosen unit: the unit is chosen after rounding, so
  // 999999 ns prints "1.000 ms" rather than "1000.000 us".
  const char* units[] = {"us", "ms", "s"};
  unsigned __int128 scale = 1;  // ns per thousandth of the unit
  for (const char* unit : units) {
    unsigned __int128 thousandths = (m + scale / 2) / scale;
    if (thousandths < 1000000 || unit[0] == 's') return fixed3(thousandths, negative) + " " + unit;
    scale *= 1000;
  }
  return {};
}

int64_t rounded_div(int64_t numerator, int64_t denominator) {
  if (denominator <= 0) return 0;
  return static_cast<int64_t>((static_cast<__int128>(numerator) * 2 + denominator) /
                              (static_cast<__int128>(denominator) * 2));
}

std::string percent_text(int64_t part, int64_t whole) {
  if (whole <= 0) return "0.00";
  __int128 hundredths =
      (static_cast<__int128>(part) * 20000 + whole) / (static_cast<__int128>(whole) * 2);
  char text[48];
  std::snprintf(text, sizeof text, "%lld.%02lld", static_cast<long long>(hundredths / 100),
                static_cast<long long>(hundredths % 100));
  return text;
}

}  // namespace prof::report
