// Facts about the MUSA ABI gathered in two translation units that cannot see each other's types:
// one from prof's declarations (runtimes/musa/musa_abi.hpp), one from musa_abi_reference.h.
#pragma once
#include <cstddef>

namespace prof::test::musa {

struct AbiFacts {
  int errors[28];
  int memcpy_kinds[5];
  int flags[19];
  size_t layout[13];
};

extern const AbiFacts kOurFacts;
extern const AbiFacts kReferenceFacts;

}  // namespace prof::test::musa
