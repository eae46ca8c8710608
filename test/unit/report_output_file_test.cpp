#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "report/output_file.hpp"
#include "report/report_error.hpp"

using namespace prof::report;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/prof_report_test_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("an output file appears only on commit", "[report][output]") {
  TempDir dir;
  std::string final_path = dir.path + "/r.csv";
  OutputFile file(final_path);
  file.write("hello\n");
  file.finish();
  CHECK_FALSE(exists(final_path));
  CHECK(exists(file.temp_path()));
  file.commit();
  CHECK(read(final_path) == "hello\n");
  CHECK_FALSE(exists(file.temp_path()));
}

TEST_CASE("an output file destroyed without commit leaves nothing", "[report][output]") {
  TempDir dir;
  std::string temp;
  {
    OutputFile file(dir.path + "/r.csv");
    file.write(std::string(200000, 'x'));  // past the buffer: the temp file has content
    temp = file.temp_path();
    CHECK(exists(temp));
  }
  CHECK_FALSE(exists(temp));
  CHECK_FALSE(exists(dir.path + "/r.csv"));
}

TEST_CASE("output files refuse symlinks", "[report][output]") {
  TempDir dir;
  std::string target = dir.path + "/target";
  std::string link = dir.path + "/r.csv";
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  CHECK_THROWS_WITH(OutputFile(link), Catch::Contains(link) && Catch::Contains("symbolic link"));
  CHECK_FALSE(exists(target));
}

TEST_CASE("a missing output directory is one clear error", "[report][output]") {
  CHECK_THROWS_WITH(
      OutputFile("/nonexistent-prof-dir/r.csv"),
      Catch::Contains("/nonexistent-prof-dir/r.csv") && Catch::Contains("cannot create"));
}
