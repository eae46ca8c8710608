# Benchmark programs (not tests): scripts/bench.sh runs them all and prints the tables that
# docs/performance.md records. The CTest entry is a smoke run with tiny N, so they keep building
# and running; it checks that every configuration produced a number, never how fast it was.
if(TARGET prof_sim_hip)
  add_executable(prof_bench_api_overhead ${CMAKE_CURRENT_LIST_DIR}/api_overhead.cpp)
  target_link_libraries(prof_bench_api_overhead PRIVATE prof::headers prof_warnings prof_sim_hip Threads::Threads)
  if(EXISTS /usr/include/hip/hip_runtime_api.h)
    target_compile_definitions(prof_bench_api_overhead PRIVATE __HIP_PLATFORM_AMD__)
  endif()
  set_target_properties(prof_bench_api_overhead PROPERTIES OUTPUT_NAME api_overhead
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin SKIP_BUILD_RPATH ON)

  add_executable(prof_bench_new_threads ${CMAKE_CURRENT_LIST_DIR}/new_threads.cpp)
  target_link_libraries(prof_bench_new_threads PRIVATE prof_warnings prof_sim_hip Threads::Threads)
  set_target_properties(prof_bench_new_threads PROPERTIES OUTPUT_NAME new_threads
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin SKIP_BUILD_RPATH ON)

  # The interposition floor: forwards every HIP function and does nothing else. Built like the
  # preload library (hidden visibility, only the hooks exported) so the comparison is fair.
  add_library(prof_bench_noop_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/noop_preload.cpp)
  target_link_libraries(prof_bench_noop_preload PRIVATE prof::headers prof_warnings ${CMAKE_DL_LIBS})
  target_compile_options(prof_bench_noop_preload PRIVATE -fno-exceptions -fno-rtti -fvisibility=hidden
                         -fno-semantic-interposition)
  target_link_options(prof_bench_noop_preload PRIVATE -Wl,-z,now -static-libstdc++ -static-libgcc
                      -Wl,--version-script=${PROF_GENERATED_DIR}/interpose/exports.map)
  set_target_properties(prof_bench_noop_preload PROPERTIES OUTPUT_NAME noop_preload
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)

  # The mover's encoding of a ring into journal blocks, and the builder's decoding (bench.sh --only journal).
  add_executable(prof_bench_journal_codec ${CMAKE_CURRENT_LIST_DIR}/journal_codec_bench.cpp)
  target_link_libraries(prof_bench_journal_codec PRIVATE prof::collector prof_warnings Threads::Threads)
  set_target_properties(prof_bench_journal_codec PROPERTIES OUTPUT_NAME journal_codec_bench
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)

  add_test(NAME bench:smoke COMMAND ${CMAKE_SOURCE_DIR}/scripts/bench.sh --smoke)
  set_tests_properties(bench:smoke PROPERTIES LABELS e2e ENVIRONMENT PROF_BUILD_DIR=${CMAKE_BINARY_DIR})
endif()
