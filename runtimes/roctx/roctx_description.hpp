// roctx as prof's core names it. Its calls are markers (the db's `markers` table), never rows of
// api_calls, so it has no API table, lanes or labels of its own: the runtimes table never lists it.
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr RuntimeDescription kRoctxDescription{RuntimeId::kRoctx, "roctx", "roctx", "", "",
                                                      "roctxtrace",      {},      {}};

}  // namespace prof
