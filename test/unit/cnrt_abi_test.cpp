// Holds prof's CNRT table and types against cnrt_abi_reference.h, a header written from
// ../shared/reference/vendor-api.md §3 (no real cnrt.h is installed). The prototypes are checked at
// compile time: each row of cnrt_api.def is redeclared here as extern "C" next to the reference's
// declaration, and a C function declared twice with different types does not compile (a const
// source in cnrtMemcpy, or the direction before the queue in cnrtMemcpyAsync, fails here); a row
// the reference lacks fails the decltype check. Values and layouts (directions 0..5, the
// per-thread and legacy queue handles, cnrtErrorBusy, cnrtDeviceProp_V3) are compared at run time
// with cnrt_abi_ours.cpp.
#include "test/unit/cnrt_abi_reference.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "test/unit/cnrt_abi_values.hpp"

extern "C" {
#define PROF_CNRT_API(name, ret, params, ...) ret name params;
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
}

#define PROF_CNRT_API(name, ret, params, ...) \
  static_assert(std::is_same_v<decltype(&name), ret(*) params>, #name);
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API

namespace prof::test::cnrt {
const AbiFacts kReferenceFacts =
#include "test/unit/cnrt_abi_facts.inc"
    ;
}  // namespace prof::test::cnrt

using prof::test::cnrt::kOurFacts;
using prof::test::cnrt::kReferenceFacts;

TEST_CASE("cnrt_abi: error codes equal the reference's (cnrtErrorBusy is 632014)") {
  for (size_t i = 0; i < std::size(kOurFacts.errors); ++i) {
    INFO("error index " << i);
    CHECK(kOurFacts.errors[i] == kReferenceFacts.errors[i]);
  }
  CHECK(kOurFacts.errors[10] == 632014);
}

TEST_CASE("cnrt_abi: copy directions are CNRT's 0..5, not HIP's order") {
  for (size_t i = 0; i < std::size(kOurFacts.directions); ++i) {
    INFO("direction " << i);
    CHECK(kOurFacts.directions[i] == kReferenceFacts.directions[i]);
    CHECK(kOurFacts.directions[i] == static_cast<int64_t>(i));
  }
}

TEST_CASE("cnrt_abi: cnrtQueuePerThread is 1 and cnrtQueueLegacy 2 (HIP's are the reverse)") {
  CHECK(kOurFacts.queues[0] == kReferenceFacts.queues[0]);
  CHECK(kOurFacts.queues[1] == kReferenceFacts.queues[1]);
  CHECK(kOurFacts.queues[0] == 1);
  CHECK(kOurFacts.queues[1] == 2);
}

TEST_CASE(
    "cnrt_abi: notifier flags, function types, capture status and layouts equal the reference's") {
  for (size_t i = 0; i < std::size(kOurFacts.flags); ++i) {
    INFO("flag index " << i);
    CHECK(kOurFacts.flags[i] == kReferenceFacts.flags[i]);
  }
  for (size_t i = 0; i < std::size(kOurFacts.layout); ++i) {
    INFO("layout fact " << i);
    CHECK(kOurFacts.layout[i] == kReferenceFacts.layout[i]);
  }
}
