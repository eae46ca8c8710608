// The writers of a comparison (text, CSV, JSON, markdown) and the wording they share with the rule.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/compare.hpp"

namespace prof::report {

// "+12.3%", "-4.0%", "0.0%", or "new" from 0.
std::string percent_change(int64_t from, int64_t to);

// What the inputs allow: which rule judged the entries and what the run counts can tell, in
// sentences.
std::vector<std::string> rule_lines(const Comparison& c);

}  // namespace prof::report
