# ACL's face: libascendcl.so (acl_face.cpp, Ascend NPUs; libascendcl.map exports only acl*). ACL's
# (CANN's) real SONAME is not known (vendor-api.md §5), so programs link the plain libascendcl.so,
# as they do with -lascendcl.
prof_sim_face(prof_sim_acl ascendcl NONE NONE ${CMAKE_CURRENT_SOURCE_DIR}/libascendcl.map
              acl_face.cpp)
add_library(prof::sim_acl ALIAS prof_sim_acl)
# libmspti.so: Huawei MSPTI (runtimes/acl/mspti_activity.hpp), over libascendcl.so.
prof_sim_activity_lib(prof_sim_mspti mspti activity_libs/mspti.cpp
                      ${CMAKE_CURRENT_SOURCE_DIR}/activity_libs/libmspti.map)
add_library(prof::sim_mspti ALIAS prof_sim_mspti)
