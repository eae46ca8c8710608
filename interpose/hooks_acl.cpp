// The ACL hooks: one per row of runtimes/acl/acl_api.def, all of the one shape (hook_shape.hpp).
#include "interpose/adapters/acl_adapter.hpp"
#include "interpose/hook_shape.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_ACL_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST, EVIDENCE) \
  PROF_DEFINE_HOOK(AclAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
#include "runtimes/acl/acl_api.def"
