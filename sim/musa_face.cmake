# MUSA's face: libmusart.so.5 (musa_face.cpp translates musa* onto the model; libmusart.map
# exports only musa*). MUSART_VERSION 50100 (MUSA SDK 5.1.0); the SONAME is one a libmusart
# loader searches for.
prof_sim_face(prof_sim_musa musart 5.1.0 5 ${CMAKE_CURRENT_SOURCE_DIR}/libmusart.map musa_face.cpp)
add_library(prof::sim_musa ALIAS prof_sim_musa)
# libmupti.so: MUPTI, MUSA's activity interface (runtimes/musa/mupti_activity.hpp), over
# libmusart.so.5.
prof_sim_activity_lib(prof_sim_mupti mupti activity_libs/mupti.cpp
                      ${CMAKE_CURRENT_SOURCE_DIR}/activity_libs/libmupti.map)
add_library(prof::sim_mupti ALIAS prof_sim_mupti)
