// prof's own CNRT declarations, as values and layouts the reference side can compare with.
#include <cstddef>
#include <cstdint>

#include "runtimes/cnrt/cnrt_abi.hpp"
#include "test/unit/cnrt_abi_values.hpp"

namespace prof::test::cnrt {

const AbiFacts kOurFacts =
#include "test/unit/cnrt_abi_facts.inc"
    ;

}  // namespace prof::test::cnrt
