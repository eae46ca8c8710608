# HIP's face: libamdhip64.so.5, the device model's own entry points (exported by libamdhip64.map).
# The model's HIP-only parts are compiled into the model itself, which every face carries.
target_sources(prof_sim_model PRIVATE hip_device_info.cpp hip_more_work.cpp hip_unsupported.cpp)
prof_sim_face(prof_sim_hip amdhip64 5.2.0 5 ${CMAKE_CURRENT_SOURCE_DIR}/libamdhip64.map)
add_library(prof::sim_hip ALIAS prof_sim_hip)
