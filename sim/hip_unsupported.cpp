// Every function of the HIP table exists in the simulated libamdhip64, so any program built
// against HIP 5.2 starts. What the model does not implement is a weak definition here, generated
// from the table, that returns hipErrorNotSupported (the real runtime's answer for a feature it
// lacks) and records it as the last error; a model file's ordinary definition of the same function
// takes precedence at link time. `nm -D --defined-only libamdhip64.so.5 | grep ' W '` lists them
// (docs/sim.md). Also the library's few exports that are not HIP API.
#include <cstring>

#include "sim/runtime.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace {

template <typename Ret>
Ret not_supported() noexcept {
  if constexpr (std::is_same_v<Ret, hipError_t>) {
    return prof::sim::finish(hipErrorNotSupported);
  } else if constexpr (std::is_same_v<Ret, hiprtcResult>) {
    return HIPRTC_ERROR_INVALID_INPUT;
  } else if constexpr (!std::is_void_v<Ret>) {
    return Ret{};
  }
}

}  // namespace

#define PROF_HIP_API(name, ret, params, ...) \
  __attribute__((weak)) ret name params { return not_supported<ret>(); }
#define PROF_HIP_API_CXX(name, symbol, qualified, ret, params, ...) PROF_HIP_API(name, ret, params)
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
#undef PROF_HIP_API_CXX

// Not HIP API, but exported by libamdhip64 5.2 (its compiler-rt half-float helpers and ROCclr's
// debugger hooks), so a program may reference them.
extern "C" __attribute__((visibility("default"))) float __gnu_h2f_ieee(unsigned short h) {
  const unsigned sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ffu;
  unsigned bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal half: normalise
    int e = -1;
    unsigned m = mantissa;
    do {
      ++e;
      m <<= 1;
    } while ((m & 0x400u) == 0);
    bits = sign | ((112 - e) << 23) | ((m & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

extern "C" __attribute__((visibility("default"))) unsigned short __gnu_f2h_ieee(float f) {
  unsigned bits;
  std::memcpy(&bits, &f, sizeof bits);
  const unsigned sign = (bits >> 16) & 0x8000u;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  const unsigned mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff)
    return static_cast<unsigned short>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 0x1f) return static_cast<unsigned short>(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<unsigned short>(sign);
    const unsigned m = (mantissa | 0x800000u) >> (1 - exponent);
    return static_cast<unsigned short>(sign | ((m + 0x1000u) >> 13));
  }
  const unsigned h = sign | (static_cast<unsigned>(exponent) << 10) | (mantissa >> 13);
  return static_cast<unsigned short>(h + ((mantissa >> 12) & 1u));  // round half up
}

extern "C" __attribute__((visibility("default"))) const char* amd_dbgapi_get_build_name() {
  return "prof-sim";
}
extern "C" __attribute__((visibility("default"))) const char* amd_dbgapi_get_git_hash() {
  return "0";
}
extern "C" __attribute__((visibility("default"))) size_t amd_dbgapi_get_build_id() { return 0; }
