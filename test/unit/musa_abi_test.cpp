// Holds prof's MUSA table and types against musa_abi_reference.h, a header written from
// ../shared/reference/vendor-api.md §2 (no real MUSA header is installed). The prototypes are
// checked at compile time: each row of musa_api.def is redeclared here as extern "C" next to the
// reference's declaration, and a C function declared twice with different types does not
// compile; a row the reference lacks fails the check below. Values and layouts are compared at
// run time with musa_abi_ours.cpp. musa_abi_reference_c.c compiles the reference as C.
#include "test/unit/musa_abi_reference.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "test/unit/musa_abi_values.hpp"

extern "C" {
#define PROF_MUSA_API(name, ret, params, ...) ret name params;
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
}

// Every row names a function the reference declares: taking its address through the
// reference's own declaration (decltype) must give the table's type.
#define PROF_MUSA_API(name, ret, params, ...) \
  static_assert(std::is_same_v<decltype(&name), ret(*) params>, #name);
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API

namespace prof::test::musa {

const AbiFacts kReferenceFacts =
#include "test/unit/musa_abi_facts.inc"
    ;

}  // namespace prof::test::musa

using prof::test::musa::kOurFacts;
using prof::test::musa::kReferenceFacts;

TEST_CASE("musa_abi: error codes equal the reference's (CUDA's numbering)") {
  for (size_t i = 0; i < std::size(kOurFacts.errors); ++i) {
    INFO("error index " << i);
    CHECK(kOurFacts.errors[i] == kReferenceFacts.errors[i]);
  }
}

TEST_CASE(
    "musa_abi: memcpy kinds, stream, event, host-alloc and capture values equal the reference's") {
  for (size_t i = 0; i < std::size(kOurFacts.memcpy_kinds); ++i)
    CHECK(kOurFacts.memcpy_kinds[i] == kReferenceFacts.memcpy_kinds[i]);
  for (size_t i = 0; i < std::size(kOurFacts.flags); ++i) {
    INFO("flag index " << i);
    CHECK(kOurFacts.flags[i] == kReferenceFacts.flags[i]);
  }
}

TEST_CASE("musa_abi: musaDeviceProp, dim3 and enum layouts equal the reference's") {
  for (size_t i = 0; i < std::size(kOurFacts.layout); ++i) {
    INFO("layout fact " << i);
    CHECK(kOurFacts.layout[i] == kReferenceFacts.layout[i]);
  }
}
