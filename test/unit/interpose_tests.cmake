# ABI checks against Debian's real HIP headers (a test-only dependency): the table's prototypes
# must compile next to the real declarations, and values/layouts must match.
if(EXISTS /usr/include/hip/hip_runtime_api.h)
  prof_add_catch_test(hip_abi_test unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/hip_abi_test.cpp
                      ${CMAKE_CURRENT_LIST_DIR}/hip_abi_ours.cpp)
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
