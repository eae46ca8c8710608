# Unit tests of the command line's logic that runs no program (cli/path_pattern.*).
prof_add_catch_test(cli_unit_test unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/cli_path_pattern_test.cpp
  LIBS prof::cli)
