#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "cli/path_pattern.hpp"

using namespace prof::cli;

namespace {

// One process of an MPI job on node7, in an environment that holds X=abc and EMPTY="".
PatternValues rank_three() {
  static const std::map<std::string, std::string> environment = {
      {"X", "abc"}, {"EMPTY", ""}, {"SUB", "a/b"}};
  PatternValues values;
  values.pid = 4242;
  values.ppid = 17;
  values.rank = 3;
  values.hostname = "node7";
  values.env = [](const std::string& name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  };
  return values;
}

std::string expanded(const std::string& pattern, const PatternValues& values = rank_three()) {
  const PatternExpansion e = expand_path_pattern(pattern, values);
  INFO(pattern << ": " << e.error);
  REQUIRE(e.ok());
  return e.text;
}

std::string error_of(const std::string& pattern, const PatternValues& values = rank_three()) {
  const PatternExpansion e = expand_path_pattern(pattern, values);
  INFO(pattern << " expanded to " << e.text);
  REQUIRE_FALSE(e.ok());
  CHECK(e.text.empty());
  CHECK(e.error.find('\n') == std::string::npos);
  return e.error;
}

}  // namespace

TEST_CASE("a path without % is itself") {
  CHECK(expanded("") == "");
  CHECK(expanded("out/run1") == "out/run1");
  CHECK(expanded("/abs path/with spaces{}") == "/abs path/with spaces{}");
}

TEST_CASE("each pattern gives its process's value") {
  CHECK(expanded("out_%pid%") == "out_4242");
  CHECK(expanded("%ppid%-%pid%") == "17-4242");
  CHECK(expanded("runs/%hostname%/rank%rank%") == "runs/node7/rank3");
  CHECK(expanded("r_%rank%_%env{X}%") == "r_3_abc");
  CHECK(expanded("%q{X}%%q{UNSET}%%q{EMPTY}%.") == "abc.");
  CHECK(expanded("%env{EMPTY}%x") == "x");
  CHECK(expanded("%env{SUB}%/%pid%") == "a/b/4242");
}

TEST_CASE("%% is a literal % and starts no pattern") {
  CHECK(expanded("100%%") == "100%");
  CHECK(expanded("%%pid%%") == "%pid%");
  CHECK(expanded("%%%pid%") == "%4242");
}

TEST_CASE("a value holding % is not expanded again") {
  PatternValues values = rank_three();
  values.env = [](const std::string&) -> const char* { return "%pid%"; };
  CHECK(expanded("%env{A}%", values) == "%pid%");
}

TEST_CASE("an unknown or unclosed pattern is an error naming it") {
  CHECK(error_of("out_%foo%").find("'%foo%' is not a pattern") == 0);
  CHECK(error_of("out_%PID%").find("'%PID%'") != std::string::npos);
  CHECK(error_of("out_%pid").find("'%pid'") != std::string::npos);
  CHECK(error_of("50%").find("lone %") != std::string::npos);
  CHECK(error_of("a%b/c").find("'%b/c'") != std::string::npos);
  CHECK(error_of("%p").find("'%p'") != std::string::npos);
  CHECK(error_of("%env{X}").find("not closed") != std::string::npos);
  CHECK(error_of("%env{X%").find("not closed") != std::string::npos);
  CHECK(error_of("%env{}%").find("variable name") != std::string::npos);
  CHECK(error_of("%q{A-B}%").find("variable name") != std::string::npos);
  CHECK(error_of("%env%").find("'%env%' is not a pattern") == 0);
}

TEST_CASE("%env{VAR}% with VAR unset is an error, and %q{VAR}% is empty") {
  CHECK(error_of("%env{UNSET}%") ==
        "UNSET is not set (%q{UNSET}% gives an empty string for an unset variable)");
  CHECK(expanded("[%q{UNSET}%]") == "[]");
}

TEST_CASE("without an environment function the process's own is read") {
  PatternValues values = rank_three();
  values.env = nullptr;
  setenv("PROF_PATTERN_TEST", "here", 1);
  CHECK(expanded("%env{PROF_PATTERN_TEST}%", values) == "here");
  unsetenv("PROF_PATTERN_TEST");
  CHECK(expanded("%q{PROF_PATTERN_TEST}%", values) == "");
}

TEST_CASE("a value with no single process is an error only when named") {
  PatternValues merged = rank_three();
  merged.pid.reset();
  merged.ppid.reset();
  merged.rank.reset();
  CHECK(expanded("merged_%hostname%", merged) == "merged_node7");
  CHECK(error_of("m_%pid%", merged).find("%pid% names one process") == 0);
  CHECK(error_of("m_%ppid%", merged).find("%ppid%") == 0);
  CHECK(error_of("m_%rank%", merged).find("%rank%") == 0);
}

TEST_CASE("whether a pattern names the pid") {
  CHECK(pattern_names_pid("out_%pid%"));
  CHECK(pattern_names_pid("%rank%/%pid%"));
  CHECK(pattern_names_pid("%hostname%%pid%"));
  CHECK(pattern_names_pid("%q{X}%%pid%"));
  CHECK(pattern_names_pid("100%%%pid%"));
  CHECK_FALSE(pattern_names_pid("out_%ppid%"));
  CHECK_FALSE(pattern_names_pid("%%pid%%"));
  CHECK_FALSE(pattern_names_pid("pid"));
  CHECK_FALSE(pattern_names_pid("r_%rank%"));
}

TEST_CASE("the literal prefix is the whole components before the first %") {
  std::string rest;
  CHECK(literal_prefix("out/run1", rest) == "out/run1");
  CHECK(rest.empty());
  CHECK(literal_prefix("out_%pid%", rest).empty());
  CHECK(rest == "out_%pid%");
  CHECK(literal_prefix("runs/%hostname%/x", rest) == "runs");
  CHECK(rest == "%hostname%/x");
  CHECK(literal_prefix("/tmp/a/p%pid%", rest) == "/tmp/a");
  CHECK(rest == "p%pid%");
  CHECK(literal_prefix("/%pid%", rest) == "/");
  CHECK(rest == "%pid%");
}
