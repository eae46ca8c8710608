# ABI checks against Debian's real HIP headers (a test-only dependency): the table's prototypes
# must compile next to the real declarations, and values/layouts must match.
if(EXISTS /usr/include/hip/hip_runtime_api.h)
  prof_add_catch_test(hip_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/hip_abi_test.cpp
                      ${CMAKE_CURRENT_LIST_DIR}/hip_abi_ours.cpp)
endif()
# Every export of the real library is a table row, hooked, and exported by the simulated library
# at its version (spawns nm; runs where the real library is installed, as CI installs it).
set(PROF_REAL_HIP_LIBRARY /usr/lib/x86_64-linux-gnu/libamdhip64.so.5)
if(EXISTS ${PROF_REAL_HIP_LIBRARY})
  add_test(NAME unit:hip_exports
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/hip_exports_test.py ${PROF_REAL_HIP_LIBRARY}
                   $<TARGET_FILE:prof_interpose> $<TARGET_FILE:prof_sim_hip> ${CMAKE_SOURCE_DIR}/runtimes/hip/hip_api.def)
  set_tests_properties(unit:hip_exports PROPERTIES LABELS unit)
else()
  message(STATUS "prof: Debian's HIP headers not installed; the ABI test is skipped")
endif()

# MUSA: no real header exists here, so the table is held against one written from the reference.
prof_add_catch_test(musa_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/musa_abi_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/musa_abi_ours.cpp ${CMAKE_CURRENT_LIST_DIR}/musa_abi_reference_c.c)

# CNRT: likewise, against a header written from the reference (CNRT 6.14.1's cnrt.h).
prof_add_catch_test(cnrt_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/cnrt_abi_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/cnrt_abi_ours.cpp ${CMAKE_CURRENT_LIST_DIR}/cnrt_abi_reference_c.c)

# ACL: likewise, against a header written from the reference (acl_rt.h 1.17, acl_mdl.h/acl_op.h 1.15).
prof_add_catch_test(acl_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/acl_abi_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/acl_abi_ours.cpp)

# MPI: against Debian's Open MPI header (libopenmpi-dev, a test-only dependency).
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  prof_add_catch_test(mpi_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/mpi_abi_test.cpp
                      ${CMAKE_CURRENT_LIST_DIR}/mpi_abi_ours.cpp)
  target_include_directories(mpi_abi_test PRIVATE ${MPI_C_INCLUDE_DIRS})
else()
  message(STATUS "prof: Open MPI's headers not installed; the MPI ABI test is skipped")
endif()

# The hooks' clock (the TSC read as CLOCK_MONOTONIC) against the kernel's clock.
prof_add_catch_test(hook_clock_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/hook_clock_test.cpp
                    ${CMAKE_SOURCE_DIR}/interpose/hook_clock.cpp LIBS Threads::Threads)

# The harvester's growing queue (interpose/spsc_ring.hpp).
prof_add_catch_test(spsc_chain_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/spsc_chain_test.cpp LIBS Threads::Threads)

# MUPTI as prof reads it (interpose/adapters/musa_adapter.hpp), on the simulated libmupti.so and
# libmusart.so.5, with hand-made buffers for what prof must skip.
prof_add_catch_test(mupti_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/mupti_test.cpp
                    ${CMAKE_SOURCE_DIR}/interpose/dl_real.cpp
                    LIBS prof::sim_musa prof::sim_mupti ${CMAKE_DL_LIBS})
