// The exceptions the report throws: a single line naming the file and what is wrong with it, so
// the cli can print it as is and map it to its own exit code.
#pragma once
#include <stdexcept>

namespace prof::report {

// Something is wrong with the input (a database, a directory of databases, an option).
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input is fine but an output cannot be written (directory, existing file, disk).
class ReportOutputError : public ReportError {
 public:
  using ReportError::ReportError;
};

// The input does not exist (a missing database or directory, a directory without prof dbs).
class ReportMissingInput : public ReportError {
 public:
  using ReportError::ReportError;
};

}  // namespace prof::report
