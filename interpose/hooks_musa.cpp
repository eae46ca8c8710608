// The MUSA hooks: one per row of runtimes/musa/musa_api.def, all of the one shape (hook_shape.hpp).
#include "interpose/adapters/musa_adapter.hpp"
#include "interpose/hook_shape.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_MUSA_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST, EVIDENCE) \
  PROF_DEFINE_HOOK(MusaAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
#include "runtimes/musa/musa_api.def"
