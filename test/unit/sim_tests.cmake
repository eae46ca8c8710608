# Tests of the simulated HIP device (sim/).
prof_add_catch_test(sim_unit_test unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_timing_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_api_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_graph_test.cpp
  LIBS prof::sim_hip)

# A program built by the real hipcc, run on the sim. It spawns a process and needs a toolchain,
# so it is labelled integration, not unit.
find_program(PROF_HIPCC hipcc)
if(PROF_HIPCC)
  set(sim_hipcc_app ${CMAKE_BINARY_DIR}/test-bin/sim_hipcc_app)
  add_custom_command(
    OUTPUT ${sim_hipcc_app}
    COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${PROF_HIPCC_TMPDIR} ${PROF_HIPCC} --offload-arch=gfx906 -O1 ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_hipcc_app_test.hip
            -o ${sim_hipcc_app}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_hipcc_app_test.hip
    COMMENT "hipcc: building sim_hipcc_app")
  add_custom_target(sim_hipcc_app ALL DEPENDS ${sim_hipcc_app} prof_sim_hip)
  set(sim_hipcc_truth ${CMAKE_CURRENT_BINARY_DIR}/sim_hipcc_app.truth.jsonl)
  add_test(NAME integration:sim_hipcc_app
           COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${PROF_SIM_DIR} PROF_SIM_TRUTH=${sim_hipcc_truth}
                   ${sim_hipcc_app})
  set_tests_properties(integration:sim_hipcc_app PROPERTIES LABELS integration)
else()
  message(STATUS "sim: hipcc not found, the hipcc-built sample is not tested")
endif()

# The MUSA face (sim/musa_face.cpp) on the shared model.
prof_add_catch_test(sim_musa_test unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_musa_test.cpp
  LIBS prof::sim_musa)

# The simulated libcnpapi (sim/activity_libs/cnpapi.cpp) over libcnrt's model.
prof_add_catch_test(sim_cnpapi_test unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_cnpapi_test.cpp
  LIBS prof::sim_cnrt prof::sim_cnpapi)
# The simulated libmspti.so (MSPTI's activity records) on the ACL face.
if(TARGET prof_sim_mspti AND TARGET prof_sim_acl)
  prof_add_catch_test(sim_mspti_test unit
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_mspti_test.cpp
    LIBS prof::sim_acl prof::sim_mspti)
endif()
