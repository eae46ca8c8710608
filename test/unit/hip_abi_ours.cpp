// prof's own HIP declarations, as values and layouts the real-header side can compare with.
#include <cstddef>

#include "runtimes/hip/hip_abi.hpp"
#include "runtimes/hip/hip_activity.hpp"
#include "test/unit/hip_abi_values.hpp"

namespace prof::test {

const AbiFacts kOurFacts =
#include "test/unit/hip_abi_facts.inc"
    ;

}  // namespace prof::test
