# Unit tests of the report's writers and formatting (no processes, no files but temp ones).
prof_add_catch_test(report_unit_test unit
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/report_utf8_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_display_width_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_csv_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_time_format_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_stats_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_chrome_json_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_pftrace_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_summary_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_output_file_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_memory_curve_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_host_memory_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_html_report_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_event_order_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_event_pipe_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_compare_stats_test.cpp
  LIBS prof::report)
