# roctx's face: libroctx64.so.4 (roctx_face.cpp, markers only, no device model): every symbol at
# ROCTX_4.1 (libroctx64.map).
add_library(prof_sim_roctx SHARED roctx_face.cpp)
set_target_properties(prof_sim_roctx PROPERTIES
  VERSION 4.1.0 SOVERSION 4
  OUTPUT_NAME roctx64
  LIBRARY_OUTPUT_DIRECTORY ${PROF_SIM_DIR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/libroctx64.map)
target_link_libraries(prof_sim_roctx PRIVATE prof::headers prof_warnings)
target_link_options(prof_sim_roctx PRIVATE
                    -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/libroctx64.map
                    -Wl,--no-undefined)
install(TARGETS prof_sim_roctx LIBRARY DESTINATION lib/prof/sim)
add_library(prof::sim_roctx ALIAS prof_sim_roctx)
