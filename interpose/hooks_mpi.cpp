// The MPI hooks (--mpi-trace): one per row of runtimes/mpi/mpi_api.def, all of the one shape
// (hook_shape.hpp), but MPI_Finalize (kHandWritten), which first measures the clock offset to
// rank 0 while the job can still communicate.
#include "interpose/adapters/mpi_adapter.hpp"
#include "interpose/hook_shape.hpp"

using namespace prof;
using namespace prof::interpose;

#define PROF_MPI_HOOK_kConfirmed PROF_DEFINE_HOOK
#define PROF_MPI_HOOK_kHandWritten(...)
#define PROF_MPI_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST, EVIDENCE) \
  PROF_MPI_HOOK_##EVIDENCE(MpiAdapter, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API

extern "C" PROF_EXPORT int MPI_Finalize(void) {
  // Measured whether or not this call is recorded, so a merge can align every rank.
  if (g_config.enabled && g_config.traced[static_cast<size_t>(RuntimeId::kMpi)] && t_depth == 0 &&
      real<ApiId::MPI_Finalize>())
    mpi_clock_exchange("finalize");
  return run_hook<MpiAdapter, ApiId::MPI_Finalize, HookActivity::kNone>(
      real<ApiId::MPI_Finalize>(), MPI_Comm{}, []() { return real<ApiId::MPI_Finalize>()(); },
      [](int) {
        return Captured{0, 0, static_cast<uint64_t>(-1)};
      },
      [](const HookContext&, int) {}, __builtin_return_address(0));
}
