// The CNRT hooks: one per row of runtimes/cnrt/cnrt_api.def, all of the one shape (hook_shape.hpp).
#include "interpose/adapters/cnrt_adapter.hpp"
#include "interpose/hook_shape.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_CNRT_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST, EVIDENCE) \
  PROF_DEFINE_HOOK(CnrtAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
#include "runtimes/cnrt/cnrt_api.def"
