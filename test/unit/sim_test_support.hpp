// Helpers shared by the simulated runtime's unit tests (sim_*_test.cpp, one binary).
#pragma once
#include <catch2/catch.hpp>

#include "runtimes/hip/hip_runtime_decls.hpp"

namespace prof::sim_test {

inline hipStream_t make_stream(unsigned flags) {
  hipStream_t s = nullptr;
  REQUIRE(hipStreamCreateWithFlags(&s, flags) == hipSuccess);
  return s;
}

}  // namespace prof::sim_test
