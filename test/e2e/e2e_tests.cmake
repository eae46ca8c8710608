# End-to-end tests: the real prof launches the sample programs (test/apps) on the simulated runtime.
# Each is a standard-library Python script that also runs by hand (see its docstring). A script whose
# tests all skip (a sample that was not built) exits 77, which CTest shows as skipped.
if(TARGET prof)
  set(_prof_e2e_dir ${CMAKE_CURRENT_LIST_DIR})
  set(_prof_e2e_args --prof $<TARGET_FILE:prof> --bin-dir ${CMAKE_BINARY_DIR}/test-bin --sim-dir ${PROF_SIM_DIR})
  # TIMEOUT is a hang guard, not a bound: on a loaded 2-core machine (scripts/test-under-load.sh)
  # e2e:faults took over 180 s (16 s quiet), e2e:rings 123 s.
  function(prof_add_e2e_test name script)
    add_test(NAME e2e:${name} COMMAND ${Python3_EXECUTABLE} ${_prof_e2e_dir}/${script} ${_prof_e2e_args} ${ARGN})
    set_tests_properties(e2e:${name} PROPERTIES LABELS e2e TIMEOUT 600 SKIP_RETURN_CODE 77)
  endfunction()
  prof_add_e2e_test(multistream test_multistream.py --app multistream)
  prof_add_e2e_test(multistream_hip test_multistream.py --app multistream_hip)
  prof_add_e2e_test(capture test_capture.py)
  prof_add_e2e_test(boundary test_boundary.py)
  prof_add_e2e_test(abort_times test_abort_times.py)
  prof_add_e2e_test(rocm_answers test_rocm_answers.py)
  # Starts two busy loops per CPU itself: alone, so it does not load the tests beside it.
  prof_add_e2e_test(busy_host test_busy_host.py)
  set_tests_properties(e2e:busy_host PROPERTIES RUN_SERIAL TRUE)
  # These hold device times to 1 us of the simulator's timeline: on a 2-core machine a test
  # running beside them takes the CPU the application thread needs between a call and the event
  # prof records after it, so they run alone.
  set_tests_properties(e2e:multistream e2e:multistream_hip e2e:capture e2e:boundary e2e:abort_times
                       PROPERTIES RUN_SERIAL TRUE)
  prof_add_e2e_test(killme test_killme.py)
  prof_add_e2e_test(exit_status test_exit_status.py)
  prof_add_e2e_test(bad_input test_bad_input.py)
  prof_add_e2e_test(odd_names test_odd_names.py)
  prof_add_e2e_test(security_files test_security_files.py)
  prof_add_e2e_test(output_name test_output_name.py)
  prof_add_e2e_test(path_patterns test_path_patterns.py)
  prof_add_e2e_test(faults test_faults.py)
  prof_add_e2e_test(recover test_recover.py)
  prof_add_e2e_test(data_loss test_data_loss.py)
  # Peak RSS of prof --db per distinct kernel name (issue 42): alone, so the bound is the report's.
  prof_add_e2e_test(report_memory test_report_memory.py)
  set_tests_properties(e2e:report_memory PROPERTIES RUN_SERIAL TRUE)
  # Run as root: creates and removes a second local user (useradd) that plants files for root's prof.
  prof_add_e2e_test(security_user test_security_user.py)
  prof_add_e2e_test(rings test_rings.py)
  set_tests_properties(e2e:rings PROPERTIES RUN_SERIAL TRUE)
  # Eight threads flat out: alone, so the timing tests beside it do not run on a saturated host.
  set_tests_properties(e2e:faults PROPERTIES RUN_SERIAL TRUE)
  prof_add_e2e_test(transparency test_transparency.py)
  prof_add_e2e_test(idle test_idle.py)
  prof_add_e2e_test(mpi test_mpi.py)
  prof_add_e2e_test(mpi_trace test_mpi_trace.py)
  prof_add_e2e_test(processes test_processes.py)
  prof_add_e2e_test(reports_cli test_reports_cli.py)
  prof_add_e2e_test(analyze test_analyze.py)
  # --help's width and placeholders, the man page under groff/man, the bash completion in bash.
  prof_add_e2e_test(help test_help.py)
  prof_add_e2e_test(kernel_filters test_kernel_filters.py)
  prof_add_e2e_test(rtld_local test_rtld_local.py)
  prof_add_e2e_test(dlsym test_dlsym.py)
  prof_add_e2e_test(early_register test_early_register.py)
  prof_add_e2e_test(hip_coverage test_hip_coverage.py)
  prof_add_e2e_test(host_copies test_host_copies.py)
  set_tests_properties(e2e:hip_coverage PROPERTIES RUN_SERIAL TRUE)
  set_tests_properties(e2e:dlsym PROPERTIES RUN_SERIAL TRUE)
  prof_add_e2e_test(signals test_signals.py)
  prof_add_e2e_test(signal_calls test_signal_calls.py)
  prof_add_e2e_test(daemons test_daemons.py)
  prof_add_e2e_test(hip_outputs_unchanged test_hip_outputs_unchanged.py)
  prof_add_e2e_test(musa test_musa.py --app musa_sample)
  prof_add_e2e_test(musa_sample_sim test_musa_sample_sim.py)
  prof_add_e2e_test(two_runtimes test_two_runtimes.py)
  prof_add_e2e_test(cnrt test_cnrt.py)
  prof_add_e2e_test(acl test_acl.py)
  prof_add_e2e_test(compare test_compare.py)
  prof_add_e2e_test(trace_outputs test_trace_outputs.py)
  prof_add_e2e_test(outputs test_outputs.py)
  # The HTML report and the timeline in headless Chromium (test/browser): fails in CI without
  # chromium or test/browser/node_modules, skips elsewhere.
  prof_add_e2e_test(html_report test_html_report.py)
  prof_add_e2e_test(markers test_markers.py)
  # The findings engine (issue 40) on a sample with one phase per rule, a clean pipelined one, and
  # the copy, sync and idle phases on MUSA, CNRT and ACL.
  prof_add_e2e_test(findings test_findings.py)
  prof_add_e2e_test(capture_control test_capture_control.py)
  prof_add_e2e_test(big_timeline test_big_timeline.py)
  # No wall-clock bound in a functional test (docs/guarantees.md, "The tests"): greps test/.
  prof_add_e2e_test(no_wallclock_bounds test_no_wallclock_bounds.py)
  # 5M calls flat out, then 1.7 GB of outputs: alone, so the timing tests do not run beside it.
  set_tests_properties(e2e:big_timeline PROPERTIES RUN_SERIAL TRUE TIMEOUT 900)
  set_tests_properties(e2e:musa e2e:two_runtimes e2e:cnrt e2e:acl PROPERTIES RUN_SERIAL TRUE)
else()
  message(STATUS "e2e tests: no prof target yet, not added")
endif()
