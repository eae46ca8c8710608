// Prototypes of every CNRT function in cnrt_api.def, declared from the table. Used by the simulated
// runtime's CNRT face (so its definitions are checked against the table) and by C++ test programs.
#pragma once
#include "common/record.hpp"
#include "runtimes/cnrt/cnrt_abi.hpp"

extern "C" {
#define PROF_CNRT_API(name, ret, params, ...) ret name params;
#include "runtimes/cnrt/cnrt_api.def"
#undef PROF_CNRT_API
}
