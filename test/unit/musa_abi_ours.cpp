// prof's own MUSA declarations, as values and layouts the reference side can compare with.
#include <cstddef>
#include <cstdint>

#include "runtimes/musa/musa_abi.hpp"
#include "test/unit/musa_abi_values.hpp"

namespace prof::test::musa {

const AbiFacts kOurFacts =
#include "test/unit/musa_abi_facts.inc"
    ;

}  // namespace prof::test::musa
