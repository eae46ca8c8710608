// An MPI + HIP program for `mpirun -np N prof --mpi-trace --sim ...` (e2e:mpi_trace): every rank
// copies data to its device, launches a kernel (named from the ELF symbol of its host stand-in),
// then the ranks exchange the result in a ring (MPI_Sendrecv), with nonblocking pairs
// (Isend/Irecv/Waitall), and collectives (Barrier, Bcast, Allreduce, Allgather, Alltoall, Reduce).
// Each rank prints `RANK r PID p` and `EXPECT rank=r mpi_calls=N hip_calls=N kernels=1 copies=2`;
// rank 0 prints `END` after the last barrier.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void ring_step(float* data, int n) {
  (void)data, (void)n;
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char** argv) {
  long mpi_calls = 0;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mpi_calls += 3;
  std::printf("RANK %d PID %d\n", rank, static_cast<int>(getpid()));

  const int n = 4096;
  std::vector<float> host(n, static_cast<float>(rank)), incoming(n, 0.0f);
  float* device = nullptr;
  PROF_HIP(hipMalloc(reinterpret_cast<void**>(&device), n * sizeof(float)));
  PROF_HIP(hipMemcpy(device, host.data(), n * sizeof(float), hipMemcpyHostToDevice));
  void* args[] = {&device, const_cast<int*>(&n)};
  PROF_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&ring_step), dim3(n / 256), dim3(256),
                           args, 0, nullptr));
  PROF_HIP(hipMemcpy(host.data(), device, n * sizeof(float), hipMemcpyDeviceToHost));

  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(host.data(), n, MPI_FLOAT, next, 7, incoming.data(), n, MPI_FLOAT, prev, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ++mpi_calls;
  MPI_Request requests[2];
  MPI_Irecv(incoming.data(), 1024, MPI_FLOAT, prev, 8, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(host.data(), 1024, MPI_FLOAT, next, 8, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  mpi_calls += 3;
  MPI_Barrier(MPI_COMM_WORLD);
  double value = rank, sum = 0;
  MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::vector<int> mine(1, rank), all(size), spread(size, rank), gathered(size);
  MPI_Allgather(mine.data(), 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(spread.data(), 1, MPI_INT, gathered.data(), 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  mpi_calls += 6;
  PROF_HIP(hipFree(device));
  MPI_Barrier(MPI_COMM_WORLD);
  ++mpi_calls;
  std::printf("EXPECT rank=%d mpi_calls=%ld hip_calls=%ld kernels=1 copies=2\n", rank,
              mpi_calls + 1,
              samples::g_api_calls);  // + MPI_Finalize
  std::fflush(stdout);
  MPI_Finalize();
  if (rank == 0) std::printf("END\n");
  return 0;
}
