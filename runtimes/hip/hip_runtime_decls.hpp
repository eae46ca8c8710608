// Prototypes of every HIP function in hip_api.def, declared from the table. Used by the simulated
// runtime (so its definitions are checked against the table) and by sample programs that are built
// without Debian's HIP headers.
#pragma once
#include "common/record.hpp"
#include "runtimes/hip/hip_abi.hpp"

// hip_api.def's capture expressions are not evaluated here; only the prototypes are declared.
extern "C" {
#define PROF_HIP_API(name, ret, params, args, activity, stream, bytes, aux, post) ret name params;
// C++-linkage exports: declared under their mangled symbol, so a definition is exported as the real
// one.
#define PROF_HIP_API_CXX(name, symbol, qualified, ret, params, ...) ret name params __asm__(symbol);
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#undef PROF_HIP_API_CXX
}
