// Prototypes of every MUSA function in musa_api.def, declared from the table. Used by the simulated
// runtime's MUSA face (so its definitions are checked against the table) and by C++ test programs.
#pragma once
#include "common/record.hpp"
#include "runtimes/musa/musa_abi.hpp"

extern "C" {
#define PROF_MUSA_API(name, ret, params, ...) ret name params;
#include "runtimes/musa/musa_api.def"
#undef PROF_MUSA_API
}
