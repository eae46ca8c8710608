// The collector's readings of /proc: the runnable-task count the mover judges a crowded machine by.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "collector/process_info.hpp"

using prof::collector::runnable_tasks;

TEST_CASE("process info: the runnable count is /proc/loadavg's fourth field, before the slash", "[process_info]") {
  CHECK(runnable_tasks("0.52 0.58 0.59 3/250 12345\n") == 3);
  CHECK(runnable_tasks("12.00 9.50 8.25 17/1024 99") == 17);
  CHECK(runnable_tasks("0.00 0.00 0.00 0/1 1") == 0);
}

TEST_CASE("process info: text not of /proc/loadavg's form gives no count", "[process_info]") {
  CHECK(runnable_tasks("") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59 ") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59 /250 1") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59 x/250 1") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59 3") == -1);
  CHECK(runnable_tasks("0.52 0.58 0.59 3 250") == -1);
}

TEST_CASE("process info: this machine's /proc/loadavg counts at least the thread reading it", "[process_info]") {
  std::ifstream in("/proc/loadavg");
  if (!in) return;  // no /proc: the mover then never judges the machine crowded
  std::stringstream text;
  text << in.rdbuf();
  CHECK(runnable_tasks(text.str()) >= 1);
}
