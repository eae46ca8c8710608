// A fresh directory under $TMPDIR for one test, removed with everything in it when the test ends.
#pragma once
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

namespace prof::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix) {
    std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace prof::test
