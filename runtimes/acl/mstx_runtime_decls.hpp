// Prototypes of every mstx function in mstx_api.def, declared from the table: for test programs
// and the stand-in libms_tools_ext (so its definitions are checked against the table).
#pragma once
#include "runtimes/acl/acl_abi.hpp"

extern "C" {
#define PROF_MSTX_API(name, ret, params, ...) ret name params;
#include "runtimes/acl/mstx_api.def"
#undef PROF_MSTX_API
}
