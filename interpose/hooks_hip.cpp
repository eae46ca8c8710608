// The HIP hooks: one per row of runtimes/hip/hip_api.def, all of the one shape (hook_shape.hpp).
#include "interpose/adapters/hip_adapter.hpp"
#include "interpose/hook_shape.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_HIP_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST) \
  PROF_DEFINE_HOOK(HipAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
// A C++-linkage export: the hook is declared under the exact mangled symbol first, and the
// definition PROF_DEFINE_HOOK writes takes that name (interpose/exports.map exports it).
#define PROF_HIP_API_CXX(NAME, SYMBOL, QUALIFIED, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, \
                         POST)                                                                     \
  extern "C" PROF_EXPORT RET NAME PARAMS __asm__(SYMBOL);                                          \
  PROF_DEFINE_HOOK(HipAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
#include "runtimes/hip/hip_api.def"
