# Benchmark programs (not tests): scripts/bench-api.sh runs them plain and under prof.
if(TARGET prof_sim_hip)
  add_executable(prof_bench_api_overhead ${CMAKE_CURRENT_LIST_DIR}/api_overhead.cpp)
  target_link_libraries(prof_bench_api_overhead PRIVATE prof::headers prof_warnings prof_sim_hip Threads::Threads)
  if(EXISTS /usr/include/hip/hip_runtime_api.h)
    target_compile_definitions(prof_bench_api_overhead PRIVATE __HIP_PLATFORM_AMD__)
  endif()
  set_target_properties(prof_bench_api_overhead PROPERTIES OUTPUT_NAME api_overhead
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin SKIP_BUILD_RPATH ON)
  add_test(NAME bench:api_overhead_smoke COMMAND ${CMAKE_SOURCE_DIR}/scripts/bench-api.sh --calls 1000 --repeat 1)
  set_tests_properties(bench:api_overhead_smoke PROPERTIES LABELS e2e
    ENVIRONMENT PROF_BUILD_DIR=${CMAKE_BINARY_DIR})
endif()
