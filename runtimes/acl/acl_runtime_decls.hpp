// Prototypes of every ACL function in acl_api.def, declared from the table. Used by the simulated
// runtime's ACL face (so its definitions are checked against the table) and by C++ test programs.
#pragma once
#include "common/record.hpp"
#include "runtimes/acl/acl_abi.hpp"

extern "C" {
#define PROF_ACL_API(name, ret, params, ...) ret name params;
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
}
