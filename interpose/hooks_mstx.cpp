// The mstx hooks (--hiptx-trace): one per row of runtimes/acl/mstx_api.def, all of the marker
// shape (marker_hook.hpp). mstx marks Ascend ACL's work, so its markers belong to ACL's device.
#include "interpose/marker_hook.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_MSTX_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, MARKER, MESSAGE, VALUE, EVIDENCE) \
  PROF_DEFINE_MARKER_HOOK(kMstx, kAcl, NAME, RET, PARAMS, ARGS, STREAM, MARKER, MESSAGE, VALUE)
#include "runtimes/acl/mstx_api.def"
#undef PROF_MSTX_API
