# Tests of the collector, and of the collector with the preload library's producer side: its
# sources are compiled in (the preload library itself exports only hooks).
prof_add_catch_test(collector_unit_test unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_db_writer_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_runtimes_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_markers_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_journal_test.cpp
  LIBS prof::collector prof::sqlite)

prof_add_catch_test(collector_ring_test integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/collector_ring_test.cpp
          ${CMAKE_SOURCE_DIR}/interpose/thread_buffer.cpp ${CMAKE_SOURCE_DIR}/interpose/lifecycle.cpp
          ${CMAKE_SOURCE_DIR}/interpose/capture.cpp ${CMAKE_SOURCE_DIR}/interpose/hook_clock.cpp
          ${CMAKE_SOURCE_DIR}/interpose/device_timing.cpp ${CMAKE_SOURCE_DIR}/interpose/abrupt_end.cpp ${CMAKE_SOURCE_DIR}/interpose/stream_capture.cpp
          ${CMAKE_SOURCE_DIR}/interpose/process_files.cpp
          ${CMAKE_SOURCE_DIR}/interpose/real_functions.cpp ${CMAKE_SOURCE_DIR}/interpose/dl_real.cpp ${CMAKE_SOURCE_DIR}/interpose/timing_adapters.cpp
          ${CMAKE_SOURCE_DIR}/interpose/adapters/cnrt_activity.cpp
  LIBS prof::collector prof::sqlite Threads::Threads ${CMAKE_DL_LIBS})
