// mstx (Ascend's markers) as prof's core names it: like roctx, markers only (the `markers` table),
// never rows of api_calls, so the runtimes table never lists it.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr RuntimeDescription kMstxDescription{RuntimeId::kMstx, "mstx", "mstx", "", "",
                                                     "mstxtrace",      {},     {}};

}  // namespace prof
