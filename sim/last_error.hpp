// The per-thread last error and the error texts of a face, parameterised by the runtime's error
// type and codes, so that every face (HIP, MUSA, later CNRT and ACL) keeps its vendor's rule with
// one piece of machinery instead of its own copy.
#pragma once
#include <cstddef>

namespace prof::sim {

// Which returns a runtime stores as the thread's last error.
enum class LastErrorRule {
  // hipamd 5.2's HIP_RETURN: every return, success included, so a successful call clears it.
  kEveryReturn,
  // CUDA's runtime (and so MUSA's): failures only; "not ready" is a query's answer, not an error.
  kFailuresOnly,
};

// One thread's last error. A face declares one `thread_local` instance in its own translation
// unit (constant-initialised, internal linkage: every access is a plain TLS load or store, which
// keeps the cheap query calls cheap). The model never touches a face's last error.
template <typename Code, Code kSuccess, Code kNotReady, LastErrorRule kRule>
class LastError {
 public:
  // Every exported call returns through this: `return last_error.note(ret);`.
  Code note(Code ret) noexcept {
    if (kRule == LastErrorRule::kEveryReturn || (ret != kSuccess && ret != kNotReady)) value_ = ret;
    return ret;
  }
  // The runtime's GetLastError: returns the error and resets it to success.
  Code take() noexcept {
    const Code e = value_;
    value_ = kSuccess;
    return e;
  }
  // The runtime's PeekAtLastError: returns it and leaves it.
  Code peek() const noexcept { return value_; }

 private:
  Code value_ = kSuccess;
};

// A runtime's name and description of one error code, as its GetErrorName/GetErrorString give them.
template <typename Code>
struct ErrorText {
  Code error;
  const char* name;
  const char* text;
};

// The entry for `e` in a face's table, or null for a code the table does not know.
template <typename Code, size_t N>
const ErrorText<Code>* find_error_text(const ErrorText<Code> (&table)[N], Code e) noexcept {
  for (const ErrorText<Code>& t : table)
    if (t.error == e) return &t;
  return nullptr;
}

}  // namespace prof::sim
