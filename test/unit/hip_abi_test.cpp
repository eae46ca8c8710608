// Holds prof's API table and HIP types against Debian's real HIP headers (libamdhip64-dev).
// The prototypes are checked at compile time: each row of hip_api.def is redeclared here as
// extern "C" next to the real declaration, and a C function declared twice with different
// types does not compile. Values and layouts are compared at run time with hip_abi_ours.cpp.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstring>

#include "test/unit/hip_abi_values.hpp"

// The registration entry points are not in the public headers; hip_platform.cpp declares them
// with hip::FatBinaryInfo**, an opaque pointer the table spells void**.
extern "C" {
#define PROF_HIP_API(name, ret, params, ...) ret name params;
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
}

namespace prof::test {

const AbiFacts kRealFacts =
#include "test/unit/hip_abi_facts.inc"
    ;

}  // namespace prof::test

using prof::test::kOurFacts;
using prof::test::kRealFacts;

TEST_CASE("hip_abi: error codes equal Debian's HIP 5.2 values") {
  for (size_t i = 0; i < std::size(kOurFacts.errors); ++i) {
    INFO("error index " << i);
    CHECK(kOurFacts.errors[i] == kRealFacts.errors[i]);
  }
}

TEST_CASE("hip_abi: memcpy kinds, stream, event and capture flags equal Debian's") {
  for (size_t i = 0; i < std::size(kOurFacts.memcpy_kinds); ++i) CHECK(kOurFacts.memcpy_kinds[i] == kRealFacts.memcpy_kinds[i]);
  for (size_t i = 0; i < std::size(kOurFacts.flags); ++i) CHECK(kOurFacts.flags[i] == kRealFacts.flags[i]);
}

TEST_CASE("hip_abi: hipDeviceProp_t and dim3 layouts equal Debian's") {
  for (size_t i = 0; i < std::size(kOurFacts.layout); ++i) {
    INFO("layout fact " << i);
    CHECK(kOurFacts.layout[i] == kRealFacts.layout[i]);
  }
}
