#include "cli/path_pattern.hpp"

#include <cctype>
#include <cstdlib>

namespace prof::cli {
namespace {

constexpr const char* kKnown = "%pid%, %ppid%, %hostname%, %rank%, %env{VAR}%, %q{VAR}% or %%";

bool variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// What the error names: the % and what follows, up to the next % or a short way on.
std::string shown(std::string_view pattern, size_t at) {
  const size_t close = pattern.find('%', at + 1);
  if (close != std::string_view::npos && close - at < 40)
    return std::string(pattern.substr(at, close - at + 1));
  return std::string(pattern.substr(at, 20)) + (pattern.size() - at > 20 ? "..." : "");
}

const char* lookup(const PatternValues& values, const std::string& name) {
  return values.env ? values.env(name) : std::getenv(name.c_str());
}

// %env{VAR}% or %q{VAR}% (`word`), whose brace is at `brace_open`: as expand_one.
size_t expand_variable(std::string_view pattern, size_t at, size_t brace_open,
                       const std::string& word, const PatternValues& values, std::string& out,
                       std::string& error) {
  constexpr size_t kFailed = std::string_view::npos;
  const size_t brace = pattern.find('}', brace_open);
  if (brace == std::string_view::npos || brace + 1 >= pattern.size() || pattern[brace + 1] != '%') {
    error = "'" + shown(pattern, at) + "' is not closed: expected %" + word + "{VAR}%";
    return kFailed;
  }
  const std::string name(pattern.substr(brace_open + 1, brace - brace_open - 1));
  if (!variable_name(name)) {
    error = "'%" + word + "{" + name +
            "}%': expected a variable name (letters, digits and _) between the braces";
    return kFailed;
  }
  const char* value = lookup(values, name);
  if (!value && word == "env") {
    error = name + " is not set (%q{" + name + "}% gives an empty string for an unset variable)";
    return kFailed;
  }
  out += value ? value : "";
  return brace + 2;
}

// One %...% at `at` (pattern[at] == '%'): appends its value to `out` and returns the index after
// it, or returns npos with `error` set.
size_t expand_one(std::string_view pattern, size_t at, const PatternValues& values,
                  std::string& out, std::string& error) {
  constexpr size_t kFailed = std::string_view::npos;
  size_t end = at + 1;
  if (end < pattern.size() && pattern[end] == '%') {
    out += '%';
    return end + 1;
  }
  while (end < pattern.size() && std::islower(static_cast<unsigned char>(pattern[end]))) ++end;
  const std::string word(pattern.substr(at + 1, end - at - 1));
  if ((word == "env" || word == "q") && end < pattern.size() && pattern[end] == '{')
    return expand_variable(pattern, at, end, word, values, out, error);
  if (end >= pattern.size() || pattern[end] != '%') {
    error = at + 1 == pattern.size()
                ? "a lone % at the end (%% is a literal %)"
                : "'" + shown(pattern, at) + "' is not a pattern; expected " + kKnown;
    return kFailed;
  }
  const std::optional<int>* number = word == "pid"    ? &values.pid
                                     : word == "ppid" ? &values.ppid
                                     : word == "rank" ? &values.rank
                                                      : nullptr;
  if (number) {
    if (!*number) {
      error = "%" + word + "% names one process's value, and this command reads several";
      return kFailed;
    }
    out += std::to_string(**number);
  } else if (word == "hostname") {
    out += values.hostname;
  } else {
    error = "'%" + word + "%' is not a pattern; expected " + kKnown;
    return kFailed;
  }
  return end + 1;
}

}  // namespace

PatternExpansion expand_path_pattern(std::string_view pattern, const PatternValues& values) {
  PatternExpansion result;
  for (size_t at = 0; at < pattern.size();) {
    const size_t percent = pattern.find('%', at);
    result.text += pattern.substr(
        at, percent == std::string_view::npos ? std::string_view::npos : percent - at);
    if (percent == std::string_view::npos) break;
    at = expand_one(pattern, percent, values, result.text, result.error);
    if (at == std::string_view::npos) {
      result.text.clear();
      break;
    }
  }
  return result;
}

bool pattern_names_pid(std::string_view pattern) {
  // %%pid%% is a literal "%pid%", not the pattern: the %% pairs are skipped first.
  for (size_t at = pattern.find('%'); at != std::string_view::npos; at = pattern.find('%', at)) {
    if (pattern.substr(at, 2) == "%%") {
      at += 2;
      continue;
    }
    if (pattern.substr(at, 5) == "%pid%") return true;
    const size_t close = pattern.find('%', at + 1);
    if (close == std::string_view::npos) return false;
    at = close + 1;
  }
  return false;
}

std::string literal_prefix(const std::string& pattern, std::string& rest) {
  const size_t percent = pattern.find('%');
  rest.clear();
  if (percent == std::string::npos) return pattern;
  const size_t slash = pattern.rfind('/', percent);
  if (slash == std::string::npos) {
    rest = pattern;
    return "";
  }
  rest = pattern.substr(slash + 1);
  return slash == 0 ? "/" : pattern.substr(0, slash);
}

}  // namespace prof::cli
