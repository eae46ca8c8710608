# Report benchmark (not a test): synth_db writes synthetic prof databases that
# scripts/bench-reports.sh regenerates and merges, printing a table. The smoke test runs it with
# tiny sizes so it keeps building and running.
add_executable(prof_bench_synth_db ${CMAKE_CURRENT_LIST_DIR}/synth_db.cpp)
target_link_libraries(prof_bench_synth_db PRIVATE prof::headers prof::sqlite prof_warnings)
set_target_properties(prof_bench_synth_db PROPERTIES OUTPUT_NAME synth_db
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)
if(TARGET prof)
  add_test(NAME bench:reports_smoke
           COMMAND ${CMAKE_SOURCE_DIR}/scripts/bench-reports.sh --events 20000 --merge-dbs 3 --merge-events 5000
                   --names 2000 --work ${CMAKE_CURRENT_BINARY_DIR}/bench_reports)
  set_tests_properties(bench:reports_smoke PROPERTIES LABELS e2e TIMEOUT 300
    ENVIRONMENT PROF_BUILD_DIR=${CMAKE_BINARY_DIR})
endif()
