// Kernel names as people read them. The collector may store a symbol mangled (from
// __hipRegisterFunction) or already readable (hipModuleGetFunction names): the report demangles
// whatever still looks mangled, once per distinct name, never per event.
#pragma once
#include <string>
#include <string_view>

#include "db/demangle.hpp"

namespace prof::report {

using prof::demangle;  // db/demangle.hpp: one definition for the collector and the report

}  // namespace prof::report
