// dim3 and uint3 as both HIP and MUSA (and CUDA) declare them: the same names and layouts, so a
// translation unit that sees two runtimes' ABIs declares them once, here.
#pragma once
#include <cstdint>

extern "C" {
typedef struct dim3 {
  uint32_t x;
  uint32_t y;
  uint32_t z;
} dim3;  // 12 bytes, passed by value
typedef struct uint3 {
  unsigned int x, y, z;
} uint3;
}

static_assert(sizeof(dim3) == 12);
static_assert(sizeof(uint3) == 12);
