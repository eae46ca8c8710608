# Report integration tests: fixture dbs built from SQL (fixtures/*.sql) at test time, the report
# run on them, outputs parsed back with real CSV/JSON parsers and compared to test/golden/report/.
# Regenerate the golden files on purpose with PROF_UPDATE_GOLDEN=1 (see check_outputs.py).
add_executable(report_fixture_tool ${CMAKE_CURRENT_LIST_DIR}/report_fixture_tool.cpp)
target_link_libraries(report_fixture_tool PRIVATE prof::report prof::sqlite prof::headers prof_warnings)
set_target_properties(report_fixture_tool PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)
# report/host_memory over a db prof recorded (e2e:host_copies).
add_executable(host_memory_tool ${CMAKE_CURRENT_LIST_DIR}/host_memory_tool.cpp)
target_link_libraries(host_memory_tool PRIVATE prof::report prof::sqlite prof::headers prof_warnings)
set_target_properties(host_memory_tool PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)

add_test(NAME integration:report_outputs
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_outputs.py
                 --tool $<TARGET_FILE:report_fixture_tool>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/report_outputs)
set_tests_properties(integration:report_outputs PROPERTIES LABELS integration)

prof_add_catch_test(report_integration_test integration
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_bad_input_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_options_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_kernel_filter_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_quantiles_test.cpp
  LIBS prof::report prof::sqlite)
target_compile_definitions(report_integration_test PRIVATE
  PROF_REPORT_FIXTURES="${CMAKE_CURRENT_LIST_DIR}/fixtures")

# The findings rules (prof --analyze) on dbs built call by call in the test.
prof_add_catch_test(findings_test integration
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/findings_test.cpp
  LIBS prof::report prof::sqlite)
target_compile_definitions(findings_test PRIVATE
  PROF_REPORT_FIXTURES="${CMAKE_CURRENT_LIST_DIR}/fixtures")

# Property test: random names (fixed seed) through CSV and JSON and back through real parsers.
add_test(NAME integration:report_names_property
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_names_property.py
                 --tool $<TARGET_FILE:report_fixture_tool>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/report_names_property)
set_tests_properties(integration:report_names_property PROPERTIES LABELS integration)

# A schema-1 database (checked in, from prof before the runtimes table) reads, merges, and gives
# byte-identical HIP outputs to those the schema-1 prof wrote.
add_test(NAME integration:v1_database
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_v1_db.py --prof $<TARGET_FILE:prof>)
set_tests_properties(integration:v1_database PROPERTIES LABELS integration)

# Reports of a two-runtime db: a CSV and a summary table per runtime, labels from the db.
add_test(NAME integration:runtimes_report
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_runtimes_report.py
                 --tool $<TARGET_FILE:report_fixture_tool>)
set_tests_properties(integration:runtimes_report PROPERTIES LABELS integration)
