# CNRT's face: libcnrt.so (cnrt_face.cpp, Cambricon MLUs; libcnrt.map exports only cnrt*). CNRT
# 6.14.1's real SONAME is not known (vendor-api.md §5), so programs link the plain libcnrt.so, as
# they do with -lcnrt.
prof_sim_face(prof_sim_cnrt cnrt NONE NONE ${CMAKE_CURRENT_SOURCE_DIR}/libcnrt.map cnrt_face.cpp)
add_library(prof::sim_cnrt ALIAS prof_sim_cnrt)
# libcnpapi.so: Cambricon's CNPAPI activity API (runtimes/cnrt/cnpapi_activity.hpp), over
# libcnrt.so.
prof_sim_activity_lib(prof_sim_cnpapi cnpapi activity_libs/cnpapi.cpp
                      ${CMAKE_CURRENT_SOURCE_DIR}/activity_libs/libcnpapi.map)
add_library(prof::sim_cnpapi ALIAS prof_sim_cnpapi)
