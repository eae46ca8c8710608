// Unit conversion happens only here, where text is written, and only with integer arithmetic:
// a nanosecond count prints exactly, with no double rounding on the way.
#pragma once
#include <cstdint>
#include <string>

namespace prof::report {

// Nanoseconds as microseconds with exactly three decimals: 1234567 -> "1234.567", -5 -> "-0.005".
std::string ns_to_us_text(int64_t ns);

// A duration for people: "999 ns", "1.234 us", "12.346 ms", "3.000 s" (three decimals, rounded
// half up to the shown digit).
std::string human_duration(int64_t ns);

// part / whole as a percentage with two decimals, rounded half up: (1, 3) -> "33.33". A zero
// whole gives "0.00".
std::string percent_text(int64_t part, int64_t whole);

// numerator / denominator rounded half up to an integer (denominator > 0, both >= 0).
int64_t rounded_div(int64_t numerator, int64_t denominator);

}  // namespace prof::report
