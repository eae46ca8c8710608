// Facts about the HIP ABI gathered in two translation units that cannot see each other's types:
// one from prof's declarations, one from Debian's real headers.
#pragma once
#include <cstddef>

namespace prof::test {

struct AbiFacts {
  int errors[31];
  int memcpy_kinds[5];
  int flags[17];
  size_t layout[19];
  int activity[8];  // hipInitActivityCallback's op ids and command kinds (hip_runtime_prof.h)
};

extern const AbiFacts kOurFacts;
extern const AbiFacts kRealFacts;

}  // namespace prof::test
