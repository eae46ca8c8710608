// The collector's readings of /proc: the idle time the mover judges a crowded machine by.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "collector/process_info.hpp"

using prof::collector::idle_seconds;

TEST_CASE("process info: idle seconds are /proc/uptime's second field", "[process_info]") {
  CHECK(idle_seconds("55522.75 39963.41\n") == Approx(39963.41));
  CHECK(idle_seconds("1.00 0.05") == Approx(0.05));
  CHECK(idle_seconds("12 7\n") == Approx(7.0));
  CHECK(idle_seconds("3.5 120.5 \n") == Approx(120.5));
}

TEST_CASE("process info: text not of /proc/uptime's form gives no idle time", "[process_info]") {
  CHECK(idle_seconds("") == -1);
  CHECK(idle_seconds("55522.75") == -1);
  CHECK(idle_seconds("55522.75 ") == -1);
  CHECK(idle_seconds("55522.75 x") == -1);
  CHECK(idle_seconds("55522.75 .5") == -1);
  CHECK(idle_seconds("55522.75 39963,41") == -1);
}

TEST_CASE("process info: this machine's idle time only grows", "[process_info]") {
  const auto read = [] {
    std::ifstream in("/proc/uptime");
    std::stringstream text;
    text << in.rdbuf();
    return idle_seconds(text.str());
  };
  if (!std::ifstream("/proc/uptime")) return;  // no /proc: the mover then never judges the machine crowded
  const double first = read();
  REQUIRE(first >= 0);
  CHECK(read() >= first);
}
