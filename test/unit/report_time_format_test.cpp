#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "report/time_format.hpp"

using namespace prof::report;

TEST_CASE("nanoseconds print as microseconds with three exact decimals", "[report][time]") {
  CHECK(ns_to_us_text(0) == "0.000");
  CHECK(ns_to_us_text(1) == "0.001");
  CHECK(ns_to_us_text(999) == "0.999");
  CHECK(ns_to_us_text(1000) == "1.000");
  CHECK(ns_to_us_text(1234567) == "1234.567");
  CHECK(ns_to_us_text(-5) == "-0.005");
  CHECK(ns_to_us_text(-1234567) == "-1234.567");
  // Values a double cannot hold exactly still print exactly.
  CHECK(ns_to_us_text(9007199254740993) == "9007199254740.993");
  CHECK(ns_to_us_text(std::numeric_limits<int64_t>::max()) == "9223372036854775.807");
  CHECK(ns_to_us_text(std::numeric_limits<int64_t>::min()) == "-9223372036854775.808");
}

TEST_CASE("durations for people pick a unit and round half up", "[report][time]") {
  CHECK(human_duration(0) == "0 ns");
  CHECK(human_duration(999) == "999 ns");
  CHECK(human_duration(1000) == "1.000 us");
  CHECK(human_duration(1234) == "1.234 us");
  CHECK(human_duration(1234567) == "1.235 ms");
  CHECK(human_duration(999999) == "999.999 us");
  CHECK(human_duration(999999499) == "999.999 ms");
  CHECK(human_duration(999999500) == "1.000 s");
  CHECK(human_duration(3000000000) == "3.000 s");
  CHECK(human_duration(7200000000000) == "7200.000 s");
}

TEST_CASE("percentages have two decimals, rounded half up", "[report][time]") {
  CHECK(percent_text(1, 3) == "33.33");
  CHECK(percent_text(2, 3) == "66.67");
  CHECK(percent_text(1, 1) == "100.00");
  CHECK(percent_text(0, 5) == "0.00");
  CHECK(percent_text(5, 0) == "0.00");
  CHECK(percent_text(1, 8) == "12.50");
  CHECK(percent_text(1, 80000) == "0.00");
  CHECK(percent_text(1, 20000) == "0.01");  // 0.005 rounds up
  CHECK(percent_text(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()) ==
        "100.00");
}

TEST_CASE("rounded_div rounds half up", "[report][time]") {
  CHECK(rounded_div(10, 4) == 3);
  CHECK(rounded_div(9, 4) == 2);
  CHECK(rounded_div(0, 7) == 0);
  CHECK(rounded_div(7, 0) == 0);
}
