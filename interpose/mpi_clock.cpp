// Clock alignment across the ranks of an MPI job (--mpi-trace). Ranks on one host share
// CLOCK_MONOTONIC; ranks on different hosts do not. After MPI_Init and before MPI_Finalize every
// rank measures its offset to rank 0's clock by ping-pong (Cristian's method): rank r sends at t1,
// rank 0 answers with its clock t0, r receives at t2; offset = t0 - (t1 + t2) / 2, uncertain by
// half the round trip. The round with the shortest round trip of kRounds is kept. The results go
// to <pid>.<image>.clock; the collector stores them as meta clock_offset_<when>_ns and
// clock_uncertainty_<when>_ns, and `prof --db-merge` adds the offset to that rank's times.
//
// It uses the profiling interface (PMPI_*) on a duplicate of MPI_COMM_WORLD, so no message of the
// program can match one of prof's and no call is recorded. Open MPI's handles are addresses of
// exported objects (ompi_mpi_comm_world, ompi_mpi_byte); with another MPI nothing is measured.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <utility>

#include "common/clock.hpp"
#include "interpose/adapters/mpi_adapter.hpp"
#include "interpose/dl_hooks.hpp"
#include "interpose/process_files.hpp"

namespace prof::interpose {

namespace {

constexpr int kRounds = 8;
constexpr int kTag = 0x70726f66;  // "prof"

using CommDup = int (*)(MPI_Comm, MPI_Comm*);
using CommFree = int (*)(MPI_Comm*);
using CommRank = int (*)(MPI_Comm, int*);
using Send = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
using Recv = int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);

template <typename Fn>
Fn pmpi(const char* name) {
  return reinterpret_cast<Fn>(real_dlsym(RTLD_DEFAULT, name));
}

struct Measured {
  bool done = false;
  int64_t offset_ns = 0;
  int64_t uncertainty_ns = 0;
};
Measured g_init, g_finalize;

void write_results() {
  char text[512];
  int n = 0;
  for (const auto& [when, m] : {std::pair{"init", &g_init}, std::pair{"finalize", &g_finalize}}) {
    if (!m->done) continue;
    n += snprintf(text + n, sizeof text - static_cast<size_t>(n),
                  "clock_offset_%s_ns=%lld\nclock_uncertainty_%s_ns=%lld\n", when,
                  static_cast<long long>(m->offset_ns), when,
                  static_cast<long long>(m->uncertainty_ns));
  }
  write_clock_file(text);
}

}  // namespace

void mpi_clock_exchange(const char* when) noexcept {
  auto* world = reinterpret_cast<MPI_Comm>(real_dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"));
  auto* byte = reinterpret_cast<MPI_Datatype>(real_dlsym(RTLD_DEFAULT, "ompi_mpi_byte"));
  auto comm_dup = pmpi<CommDup>("PMPI_Comm_dup");
  auto comm_free = pmpi<CommFree>("PMPI_Comm_free");
  auto comm_rank = pmpi<CommRank>("PMPI_Comm_rank");
  auto comm_size = pmpi<CommRank>("PMPI_Comm_size");
  auto send = pmpi<Send>("PMPI_Send");
  auto recv = pmpi<Recv>("PMPI_Recv");
  if (!world || !byte || !comm_dup || !comm_free || !comm_rank || !comm_size || !send || !recv)
    return;
  MPI_Comm comm = nullptr;
  if (comm_dup(world, &comm) != MPI_SUCCESS) return;
  int rank = 0, size = 1;
  comm_rank(comm, &rank);
  comm_size(comm, &size);
  Measured m;
  m.done = true;
  MPI_Status status{};
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      for (int i = 0; i < kRounds; ++i) {
        uint64_t t1 = 0;
        if (recv(&t1, 8, byte, peer, kTag, comm, &status) != MPI_SUCCESS) break;
        const uint64_t t0 = now_ns();
        if (send(&t0, 8, byte, peer, kTag, comm) != MPI_SUCCESS) break;
      }
    }
  } else {
    int64_t best_rtt = INT64_MAX;
    for (int i = 0; i < kRounds; ++i) {
      const uint64_t t1 = now_ns();
      uint64_t t0 = 0;
      if (send(&t1, 8, byte, 0, kTag, comm) != MPI_SUCCESS) break;
      if (recv(&t0, 8, byte, 0, kTag, comm, &status) != MPI_SUCCESS) break;
      const uint64_t t2 = now_ns();
      const int64_t rtt = static_cast<int64_t>(t2 - t1);
      if (rtt < best_rtt) {
        best_rtt = rtt;
        m.offset_ns = static_cast<int64_t>(t0) - static_cast<int64_t>(t1 + (t2 - t1) / 2);
        m.uncertainty_ns = (rtt + 1) / 2;
      }
    }
    if (best_rtt == INT64_MAX) m.done = false;
  }
  comm_free(&comm);
  (when[0] == 'i' ? g_init : g_finalize) = m;
  write_results();
}

}  // namespace prof::interpose
