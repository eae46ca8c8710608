// Prototypes of every roctx function in roctx_api.def, declared from the table: for the simulated
// libroctx64 (so its definitions are checked against the table) and for C++ test programs.
#pragma once
#include "runtimes/roctx/roctx_abi.hpp"

extern "C" {
#define PROF_ROCTX_API(name, ret, params, ...) ret name params;
#include "runtimes/roctx/roctx_api.def"
#undef PROF_ROCTX_API
}
