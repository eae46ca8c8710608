// roctx's types (ROCm/roctracer inc/roctx.h; roctx_thread_id_t from rocprofiler-sdk's roctx.h):
// what runtimes/roctx/roctx_api.def needs.
#pragma once
#include <cstdint>

extern "C" {
typedef uint64_t roctx_range_id_t;
typedef uint64_t roctx_thread_id_t;
}
