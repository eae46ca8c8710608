# Sample HIP programs that the e2e tests profile (test/e2e). They link the simulated runtime's
# library file but carry no RPATH/RUNPATH, like a real HIP application: they find a runtime only
# through `prof --sim` or LD_LIBRARY_PATH. Kernel stand-ins must keep their ELF symbols, because
# prof names kernels from the symbol table: nothing here strips.
set(PROF_TEST_BIN_DIR ${CMAKE_BINARY_DIR}/test-bin)
set(PROF_SAMPLES_DIR ${CMAKE_CURRENT_LIST_DIR})

if(TARGET prof_sim_hip)
  foreach(sample multistream killme prof_killed exit_status fault transparency capture sigcount daemon churn boundary
                 idle abort_times signal_calls rocm_answers odd_names)
    add_executable(prof_sample_${sample} ${PROF_SAMPLES_DIR}/${sample}.cpp)
    target_link_libraries(prof_sample_${sample} PRIVATE prof::headers prof_warnings prof_sim_hip)
    if(EXISTS /usr/include/hip/hip_runtime_api.h)
      target_compile_definitions(prof_sample_${sample} PRIVATE __HIP_PLATFORM_AMD__)
    endif()
    set_target_properties(prof_sample_${sample} PROPERTIES
      OUTPUT_NAME ${sample}
      RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
      SKIP_BUILD_RPATH ON)
  endforeach()
  # sigcount's pthread_create is every library's (test/apps/sigcount.cpp).
  set_target_properties(prof_sample_sigcount PROPERTIES ENABLE_EXPORTS ON)
  target_link_libraries(prof_sample_sigcount PRIVATE ${CMAKE_DL_LIBS})
  install(TARGETS prof_sample_multistream RUNTIME DESTINATION share/prof/samples)
else()
  message(STATUS "prof samples: no prof_sim_hip target yet, sample programs not built")
endif()

# The same sample with real __global__ kernels, when Debian's hipcc is installed. hipcc is not a
# CMake language here (no ROCm CMake package on Debian), so it runs as a custom command.
find_program(PROF_HIPCC hipcc)
if(PROF_HIPCC)
  set(_prof_hip_sample ${PROF_TEST_BIN_DIR}/multistream_hip)
  add_custom_command(
    OUTPUT ${_prof_hip_sample}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROF_TEST_BIN_DIR}
    COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${PROF_HIPCC_TMPDIR} ${PROF_HIPCC} --offload-arch=gfx906 -O2 -std=c++17 -I${PROF_SAMPLES_DIR}
            ${PROF_SAMPLES_DIR}/multistream_hip.hip -o ${_prof_hip_sample}
    DEPENDS ${PROF_SAMPLES_DIR}/multistream_hip.hip ${PROF_SAMPLES_DIR}/hip_calls.hpp
    COMMENT "hipcc multistream_hip"
    VERBATIM)
  add_custom_target(prof_sample_multistream_hip ALL DEPENDS ${_prof_hip_sample})
  set(_prof_hipcc_extras ${PROF_TEST_BIN_DIR}/hipcc_extras)
  add_custom_command(
    OUTPUT ${_prof_hipcc_extras}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROF_TEST_BIN_DIR}
    COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${PROF_HIPCC_TMPDIR} ${PROF_HIPCC} --offload-arch=gfx906 -O2 -std=c++17 ${PROF_SAMPLES_DIR}/hipcc_extras.hip
            -o ${_prof_hipcc_extras}
    DEPENDS ${PROF_SAMPLES_DIR}/hipcc_extras.hip
    COMMENT "hipcc hipcc_extras"
    VERBATIM)
  add_custom_target(prof_sample_hipcc_extras ALL DEPENDS ${_prof_hipcc_extras})
else()
  message(STATUS "prof samples: hipcc not found, multistream_hip not built (its e2e test skips)")
endif()

# The C MUSA sample: musa* calls only, against the simulated libmusart.
if(TARGET prof_sim_musa)
  add_executable(prof_sample_musa_sample ${PROF_SAMPLES_DIR}/musa_sample.c)
  target_link_libraries(prof_sample_musa_sample PRIVATE prof_sim_musa)
  set_target_properties(prof_sample_musa_sample PROPERTIES
    OUTPUT_NAME musa_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# HIP reached only through a library loaded with RTLD_LOCAL (issue 17): the library links the
# simulated runtime, the program only libdl.
if(TARGET prof_sim_hip)
  add_library(prof_sample_rtld_local_lib SHARED ${PROF_SAMPLES_DIR}/rtld_local_lib.cpp)
  target_link_libraries(prof_sample_rtld_local_lib PRIVATE prof::headers prof_warnings prof_sim_hip)
  if(EXISTS /usr/include/hip/hip_runtime_api.h)
    target_compile_definitions(prof_sample_rtld_local_lib PRIVATE __HIP_PLATFORM_AMD__)
  endif()
  set_target_properties(prof_sample_rtld_local_lib PROPERTIES
    OUTPUT_NAME rtld_local_lib
    LIBRARY_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
  add_executable(prof_sample_rtld_local ${PROF_SAMPLES_DIR}/rtld_local.cpp)
  target_link_libraries(prof_sample_rtld_local PRIVATE prof_warnings ${CMAKE_DL_LIBS})
  set_target_properties(prof_sample_rtld_local PROPERTIES
    OUTPUT_NAME rtld_local
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR})
endif()

# HIP calls beyond the basics (e2e:hip_coverage): needs Debian's HIP headers (hiprtc.h, the symbol
# templates), links the simulated runtime.
if(TARGET prof_sim_hip AND EXISTS /usr/include/hip/hiprtc.h)
  add_executable(prof_sample_hip_coverage ${PROF_SAMPLES_DIR}/hip_coverage.cpp)
  target_link_libraries(prof_sample_hip_coverage PRIVATE prof::headers prof_warnings prof_sim_hip)
  target_compile_definitions(prof_sample_hip_coverage PRIVATE __HIP_PLATFORM_AMD__)
  set_target_properties(prof_sample_hip_coverage PROPERTIES
    OUTPUT_NAME hip_coverage
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# An MPI + HIP program (e2e:mpi_trace), where Debian's libopenmpi-dev is installed.
find_package(MPI COMPONENTS C QUIET)
if(TARGET prof_sim_hip AND MPI_C_FOUND)
  add_executable(prof_sample_mpi_sample ${PROF_SAMPLES_DIR}/mpi_sample.cpp)
  target_link_libraries(prof_sample_mpi_sample PRIVATE prof::headers prof_warnings prof_sim_hip MPI::MPI_C)
  if(EXISTS /usr/include/hip/hip_runtime_api.h)
    target_compile_definitions(prof_sample_mpi_sample PRIVATE __HIP_PLATFORM_AMD__)
  endif()
  # The C API only (Open MPI's mpi.h pulls in its deprecated C++ bindings in C++ otherwise).
  target_compile_definitions(prof_sample_mpi_sample PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
  set_target_properties(prof_sample_mpi_sample PROPERTIES
    OUTPUT_NAME mpi_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
else()
  message(STATUS "prof samples: MPI (libopenmpi-dev) not found, mpi_sample not built (e2e:mpi_trace skips)")
endif()

# HIP reached only through dlopen + dlsym/dlvsym (e2e:dlsym): the program links only libdl, and
# finds the simulated libamdhip64.so.5 through LD_LIBRARY_PATH (prof --sim sets it).
if(TARGET prof_sim_hip)
  add_executable(prof_sample_dlsym_hip ${PROF_SAMPLES_DIR}/dlsym_hip.c)
  target_link_libraries(prof_sample_dlsym_hip PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(prof_sample_dlsym_hip PROPERTIES
    OUTPUT_NAME dlsym_hip
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR})
endif()

# A library whose constructor registers a kernel and allocates before main (and before prof's
# constructor): e2e:early_register.
if(TARGET prof_sim_hip)
  add_library(prof_sample_early_register_lib SHARED ${PROF_SAMPLES_DIR}/early_register_lib.c)
  target_link_libraries(prof_sample_early_register_lib PRIVATE prof_sim_hip)
  set_target_properties(prof_sample_early_register_lib PROPERTIES
    OUTPUT_NAME early_register_lib
    LIBRARY_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
  add_executable(prof_sample_early_register ${PROF_SAMPLES_DIR}/early_register.c)
  target_link_libraries(prof_sample_early_register PRIVATE prof_sample_early_register_lib prof_sim_hip)
  # The library beside the program ($ORIGIN), the runtime from prof --sim or LD_LIBRARY_PATH.
  set_target_properties(prof_sample_early_register PROPERTIES
    OUTPUT_NAME early_register
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON
    LINK_FLAGS "-Wl,-rpath,\$ORIGIN")
endif()

# Copies of pinned, registered and pageable host memory on HIP and MUSA (e2e:host_copies).
if(TARGET prof_sim_musa AND TARGET prof_sim_hip)
  add_executable(prof_sample_host_copies ${PROF_SAMPLES_DIR}/host_copies.cpp)
  target_link_libraries(prof_sample_host_copies PRIVATE prof_sim_hip prof_sim_musa prof::headers prof_warnings)
  set_target_properties(prof_sample_host_copies PROPERTIES
    OUTPUT_NAME host_copies
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# A program that calls HIP and MUSA: one database and one timeline for both (e2e:two_runtimes).
if(TARGET prof_sim_musa AND TARGET prof_sim_hip)
  add_executable(prof_sample_two_runtimes ${PROF_SAMPLES_DIR}/two_runtimes.cpp)
  target_link_libraries(prof_sample_two_runtimes PRIVATE prof_sim_hip prof_sim_musa prof::headers prof_warnings)
  set_target_properties(prof_sample_two_runtimes PROPERTIES
    OUTPUT_NAME two_runtimes
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# The C CNRT sample: cnrt* calls only, against the simulated libcnrt; one kernel lives in a library
# of its own, so prof names kernels from more than one ELF file.
if(TARGET prof_sim_cnrt)
  add_library(prof_sample_cnrt_kernels SHARED ${PROF_SAMPLES_DIR}/cnrt_kernels.c)
  set_target_properties(prof_sample_cnrt_kernels PROPERTIES
    OUTPUT_NAME cnrt_kernels
    LIBRARY_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR})
  add_executable(prof_sample_cnrt_sample ${PROF_SAMPLES_DIR}/cnrt_sample.c)
  target_link_libraries(prof_sample_cnrt_sample PRIVATE prof_sim_cnrt prof_sample_cnrt_kernels)
  set_target_properties(prof_sample_cnrt_sample PROPERTIES
    OUTPUT_NAME cnrt_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    BUILD_RPATH ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH OFF)
endif()

# The C ACL sample: acl* calls only, against the simulated libascendcl.
if(TARGET prof_sim_acl)
  add_executable(prof_sample_acl_sample ${PROF_SAMPLES_DIR}/acl_sample.c)
  target_link_libraries(prof_sample_acl_sample PRIVATE prof_sim_acl)
  set_target_properties(prof_sample_acl_sample PROPERTIES
    OUTPUT_NAME acl_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
  # prof reads its device times from libmspti.so, which it loads beside the face at run time.
  if(TARGET prof_sim_mspti)
    add_dependencies(prof_sample_acl_sample prof_sim_mspti)
  endif()
endif()

# A program that calls HIP and ACL: one database and one timeline for both (e2e:acl).
if(TARGET prof_sim_acl AND TARGET prof_sim_hip)
  add_executable(prof_sample_hip_acl ${PROF_SAMPLES_DIR}/hip_acl.cpp)
  target_link_libraries(prof_sample_hip_acl PRIVATE prof_sim_hip prof_sim_acl prof::headers prof_warnings)
  set_target_properties(prof_sample_hip_acl PROPERTIES
    OUTPUT_NAME hip_acl
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# The ACL sample against a split runtime (e2e:acl): libascendcl.so defines nothing and depends on
# libacl_rt.so, which exports every acl* function, as aclrt* live in libacl_rt.so in newer CANN.
if(TARGET prof_sim_acl)
  set(_prof_split_dir ${PROF_TEST_BIN_DIR}/acl_split)
  add_library(prof_test_acl_rt SHARED $<TARGET_OBJECTS:prof_sim_model> ${CMAKE_SOURCE_DIR}/sim/acl_face.cpp)
  set_target_properties(prof_test_acl_rt PROPERTIES
    OUTPUT_NAME acl_rt
    LIBRARY_OUTPUT_DIRECTORY ${_prof_split_dir}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(prof_test_acl_rt PRIVATE prof::headers prof_warnings Threads::Threads)
  target_link_options(prof_test_acl_rt PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/sim/libascendcl.map)
  add_library(prof_test_ascendcl_shim SHARED ${PROF_SAMPLES_DIR}/ascendcl_shim.c)
  set_target_properties(prof_test_ascendcl_shim PROPERTIES
    OUTPUT_NAME ascendcl
    LIBRARY_OUTPUT_DIRECTORY ${_prof_split_dir})
  target_link_libraries(prof_test_ascendcl_shim PRIVATE prof_test_acl_rt)
  target_link_options(prof_test_ascendcl_shim PRIVATE -Wl,--no-as-needed)
  add_executable(prof_sample_acl_split ${PROF_SAMPLES_DIR}/acl_sample.c)
  # -lascendcl first, as programs link it; every acl* symbol is found in libacl_rt.so.
  target_link_libraries(prof_sample_acl_split PRIVATE prof_test_ascendcl_shim prof_test_acl_rt)
  target_link_options(prof_sample_acl_split PRIVATE -Wl,--no-as-needed)
  set_target_properties(prof_sample_acl_split PROPERTIES
    OUTPUT_NAME acl_sample
    RUNTIME_OUTPUT_DIRECTORY ${_prof_split_dir}
    BUILD_RPATH ${_prof_split_dir})
endif()

# roctx markers around HIP work (e2e:markers): links the simulated libroctx64.so.4 and libamdhip64.
if(TARGET prof_sim_hip AND TARGET prof_sim_roctx)
  add_executable(prof_sample_roctx_sample ${PROF_SAMPLES_DIR}/roctx_sample.cpp)
  target_link_libraries(prof_sample_roctx_sample PRIVATE prof::headers prof_warnings prof_sim_hip prof_sim_roctx
                        Threads::Threads)
  set_target_properties(prof_sample_roctx_sample PROPERTIES
    OUTPUT_NAME roctx_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# The findings engine's samples (e2e:findings, issue 40): one phase per rule inside a roctx range
# named after it, and a clean pipelined program that should have no finding of weight.
if(TARGET prof_sim_hip AND TARGET prof_sim_roctx)
  foreach(sample findings_hip pipelined_hip)
    add_executable(prof_sample_${sample} ${PROF_SAMPLES_DIR}/${sample}.cpp)
    target_link_libraries(prof_sample_${sample} PRIVATE prof::headers prof_warnings prof_sim_hip)
    set_target_properties(prof_sample_${sample} PROPERTIES
      OUTPUT_NAME ${sample}
      RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
      SKIP_BUILD_RPATH ON)
  endforeach()
  target_link_libraries(prof_sample_findings_hip PRIVATE prof_sim_roctx)
endif()
# The same rules' copy, sync and idle phases for MUSA, CNRT and ACL (e2e:findings), in C. prof reads
# their device times from the vendor's activity library (libmupti, libcnpapi, libmspti), which it
# loads beside the face at run time.
foreach(pair musa:mupti cnrt:cnpapi acl:mspti)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 runtime)
  list(GET pair 1 activity)
  if(TARGET prof_sim_${runtime})
    add_executable(prof_sample_findings_${runtime} ${PROF_SAMPLES_DIR}/findings_${runtime}.c)
    target_link_libraries(prof_sample_findings_${runtime} PRIVATE prof_sim_${runtime})
    set_target_properties(prof_sample_findings_${runtime} PROPERTIES
      OUTPUT_NAME findings_${runtime}
      RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
      SKIP_BUILD_RPATH ON)
    if(TARGET prof_sim_${activity})
      add_dependencies(prof_sample_findings_${runtime} prof_sim_${activity})
    endif()
  endif()
endforeach()

# Capture control (e2e:capture_control): hipProfilerStart/Stop and roctxProfilerResume/Pause windows.
if(TARGET prof_sim_hip AND TARGET prof_sim_roctx)
  add_executable(prof_sample_toggle_sample ${PROF_SAMPLES_DIR}/toggle_sample.cpp)
  target_link_libraries(prof_sample_toggle_sample PRIVATE prof::headers prof_warnings prof_sim_hip prof_sim_roctx)
  set_target_properties(prof_sample_toggle_sample PROPERTIES
    OUTPUT_NAME toggle_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()

# mstx markers around ACL work (e2e:markers): a stand-in libms_tools_ext.so beside the sample, found
# through the sample's own RUNPATH (the simulated runtimes ship no mstx library).
if(TARGET prof_sim_acl)
  add_library(prof_test_ms_tools_ext SHARED ${PROF_SAMPLES_DIR}/ms_tools_ext_shim.cpp)
  target_link_libraries(prof_test_ms_tools_ext PRIVATE prof::headers prof_warnings)
  set_target_properties(prof_test_ms_tools_ext PROPERTIES
    OUTPUT_NAME ms_tools_ext
    LIBRARY_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    CXX_VISIBILITY_PRESET hidden)
  add_executable(prof_sample_mstx_sample ${PROF_SAMPLES_DIR}/mstx_sample.cpp)
  target_link_libraries(prof_sample_mstx_sample PRIVATE prof::headers prof_warnings prof_sim_acl prof_test_ms_tools_ext)
  target_link_options(prof_sample_mstx_sample PRIVATE -Wl,-rpath,${PROF_TEST_BIN_DIR})
  set_target_properties(prof_sample_mstx_sample PROPERTIES
    OUTPUT_NAME mstx_sample
    RUNTIME_OUTPUT_DIRECTORY ${PROF_TEST_BIN_DIR}
    SKIP_BUILD_RPATH ON)
endif()
