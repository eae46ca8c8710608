# End-to-end tests: the real prof launches the sample programs (test/apps) on the simulated runtime.
# Each is a standard-library Python script that also runs by hand (see its docstring). A script whose
# tests all skip (a sample that was not built) exits 77, which CTest shows as skipped.
if(TARGET prof)
  set(_prof_e2e_dir ${CMAKE_CURRENT_LIST_DIR})
  set(_prof_e2e_args --prof $<TARGET_FILE:prof> --bin-dir ${CMAKE_BINARY_DIR}/test-bin --sim-dir ${PROF_SIM_DIR})
  function(prof_add_e2e_test name script)
    add_test(NAME e2e:${name} COMMAND ${Python3_EXECUTABLE} ${_prof_e2e_dir}/${script} ${_prof_e2e_args} ${ARGN})
    set_tests_properties(e2e:${name} PROPERTIES LABELS e2e TIMEOUT 180 SKIP_RETURN_CODE 77)
  endfunction()
  prof_add_e2e_test(multistream test_multistream.py --app multistream)
  prof_add_e2e_test(multistream_hip test_multistream.py --app multistream_hip)
  prof_add_e2e_test(capture test_capture.py)
  # These hold device times to 1 us of the simulator's timeline: on a 2-core machine a test
  # running beside them takes the CPU the application thread needs between a call and the event
  # prof records after it, so they run alone.
  set_tests_properties(e2e:multistream e2e:multistream_hip e2e:capture PROPERTIES RUN_SERIAL TRUE)
  prof_add_e2e_test(killme test_killme.py)
  prof_add_e2e_test(exit_status test_exit_status.py)
  prof_add_e2e_test(bad_input test_bad_input.py)
  prof_add_e2e_test(output_name test_output_name.py)
  prof_add_e2e_test(faults test_faults.py)
  prof_add_e2e_test(rings test_rings.py)
  set_tests_properties(e2e:rings PROPERTIES RUN_SERIAL TRUE)
  # Eight threads flat out: alone, so the timing tests beside it do not run on a saturated host.
  set_tests_properties(e2e:faults PROPERTIES RUN_SERIAL TRUE)
  prof_add_e2e_test(transparency test_transparency.py)
  prof_add_e2e_test(mpi test_mpi.py)
  prof_add_e2e_test(reports_cli test_reports_cli.py)
else()
  message(STATUS "e2e tests: no prof target yet, not added")
endif()
