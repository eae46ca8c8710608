# Tests of the simulated HIP device (sim/).
prof_add_catch_test(sim_unit_test unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_timing_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/sim_api_test.cpp
  LIBS prof::sim_hip)
