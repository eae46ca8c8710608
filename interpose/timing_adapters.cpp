#include "interpose/timing_adapter.hpp"
// Each runtime's interpose/adapters/<name>_adapter.hpp, where it has one (generated from
// runtimes/runtime_list.def).
#include "interpose/timing_adapter_headers.hpp"

namespace prof::interpose {

namespace {
// The marker APIs (roctx, mstx) enqueue no device work: device timing never asks them anything.
constexpr TimingAdapter marker_timing(RuntimeId runtime) {
  return mpi_timing::no_device_timing(runtime, 0);
}
// A kMarker runtime's k<Enum>Timing is defined here; the others' come from their adapters.
#define PROF_MARKER_TIMING_kDevice(Enum)
#define PROF_MARKER_TIMING_kHost(Enum)
#define PROF_MARKER_TIMING_kMarker(Enum) \
  constexpr TimingAdapter k##Enum##Timing = marker_timing(RuntimeId::k##Enum);
#define PROF_RUNTIME(Enum, name, folder, exports, kind, ...) PROF_MARKER_TIMING_##kind(Enum)
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
#undef PROF_MARKER_TIMING_kDevice
#undef PROF_MARKER_TIMING_kHost
#undef PROF_MARKER_TIMING_kMarker
}  // namespace

const TimingAdapter* const kTimingAdapters[kRuntimeCount] = {
#define PROF_RUNTIME(Enum, ...) &k##Enum##Timing,
#include "runtimes/runtime_list.def"
#undef PROF_RUNTIME
};

}  // namespace prof::interpose
