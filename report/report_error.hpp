// The one exception the report throws: a single line naming the file and what is wrong with it,
// so the cli can print it as is and map it to its own exit code.
#pragma once
#include <stdexcept>

namespace prof::report {

class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace prof::report
