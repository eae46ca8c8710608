// The CNRT values and layouts that prof's declarations (cnrt_abi_ours.cpp) and the reference header
// (cnrt_abi_test.cpp) must agree on, gathered by one list (cnrt_abi_facts.inc) compiled twice.
#pragma once
#include <cstdint>

namespace prof::test::cnrt {
struct AbiFacts {
  int64_t errors[12];
  int64_t directions[6];
  int64_t queues[2];  // cnrtQueuePerThread, cnrtQueueLegacy
  int64_t flags[9];   // notifier flags, function types, capture status
  int64_t layout[6];
};
extern const AbiFacts kOurFacts;
}  // namespace prof::test::cnrt
