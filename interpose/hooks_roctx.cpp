// The roctx hooks (--hiptx-trace): one per row of runtimes/roctx/roctx_api.def, all of the marker
// shape (marker_hook.hpp). roctx marks HIP's work, so its markers belong to HIP's device.
#include "interpose/marker_hook.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_ROCTX_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, MARKER, MESSAGE, VALUE, \
                       EVIDENCE)                                                          \
  PROF_DEFINE_MARKER_HOOK(kRoctx, kHip, NAME, RET, PARAMS, ARGS, STREAM, MARKER, MESSAGE, VALUE)
#include "runtimes/roctx/roctx_api.def"
#undef PROF_ROCTX_API
