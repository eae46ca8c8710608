// Holds prof's API table and HIP types against Debian's real HIP headers (libamdhip64-dev).
// The prototypes are checked at compile time, for every row: each C row of hip_api.def is
// redeclared here as extern "C" next to the real declaration (a C function declared twice with
// different types does not compile), and every row's function pointer type must select the
// header's declaration exactly (static_cast of an overload set to a pointer type compiles only if
// one overload has that very type), C++-linkage rows (PROF_HIP_API_CXX) included. That every
// export of the real library is a row, and is exported by prof's hooks and the simulated library,
// is test/unit/hip_exports_test.py's job. Values and layouts are compared at run time with
// hip_abi_ours.cpp.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_ext.h>
// The activity interface's header includes nothing and declares C++ names for functions the
// library exports unmangled (hipamd defines them extern "C").
extern "C" {
#include <hip/amd_detail/hip_runtime_prof.h>
}
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "test/unit/hip_abi_values.hpp"

// Taking the address of a deprecated function is this test's job.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// libamdhip64 5.2 exports this; its header copy is inline, hidden and compiled in HIP mode only.
namespace hip_impl {
void hipLaunchKernelGGLImpl(std::uintptr_t function_address, const dim3& numBlocks,
                            const dim3& dimBlocks, std::uint32_t sharedMemBytes, hipStream_t stream,
                            void** kernarg);
}

// The registration entry points and the activity-callback hooks are not in the public headers;
// hipamd declares them extern "C" (hip::FatBinaryInfo**, an opaque pointer, is spelled void**).
extern "C" {
#define PROF_HIP_API(name, ret, params, ...) ret name params;
#define PROF_HIP_API_CXX(...)
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#undef PROF_HIP_API_CXX
}

#define PROF_HIP_API(name, ret, params, ...)                                                  \
  static_assert(std::is_same_v<decltype(static_cast<ret(*) params>(&::name)), ret(*) params>, \
                #name " differs from the header");
#define PROF_HIP_API_CXX(name, symbol, qualified, ret, params, ...)                              \
  static_assert(std::is_same_v<decltype(static_cast<ret(*) params>(&qualified)), ret(*) params>, \
                #name " differs from the header");
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#undef PROF_HIP_API_CXX

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
  for (size_t i = 0; i < std::size(kOurFacts.memcpy_kinds); ++i)
    CHECK(kOurFacts.memcpy_kinds[i] == kRealFacts.memcpy_kinds[i]);
  for (size_t i = 0; i < std::size(kOurFacts.flags); ++i)
    CHECK(kOurFacts.flags[i] == kRealFacts.flags[i]);
}

TEST_CASE("hip_abi: hipDeviceProp_t and dim3 layouts equal Debian's") {
  for (size_t i = 0; i < std::size(kOurFacts.layout); ++i) {
    INFO("layout fact " << i);
    CHECK(kOurFacts.layout[i] == kRealFacts.layout[i]);
  }
}

TEST_CASE(
    "hip_abi: the activity interface's op ids and command kinds equal Debian's "
    "hip_runtime_prof.h") {
  for (size_t i = 0; i < std::size(kOurFacts.activity); ++i) {
    INFO("activity fact " << i);
    CHECK(kOurFacts.activity[i] == kRealFacts.activity[i]);
  }
}
