// prof's MPI ABI facts (runtimes/mpi/mpi_abi.hpp), compiled apart from the real mpi.h, for
// mpi_abi_test.cpp to compare.
#include <cstddef>

#include "runtimes/mpi/mpi_abi.hpp"
#include "test/unit/mpi_abi_values.hpp"

namespace prof::test {

MpiAbiFacts our_mpi_facts() {
  return {MPI_SUCCESS,
          MPI_ERR_INTERN,
          MPI_ANY_SOURCE,
          MPI_PROC_NULL,
          sizeof(MPI_Status),
          offsetof(MPI_Status, MPI_SOURCE),
          offsetof(MPI_Status, MPI_TAG),
          offsetof(MPI_Status, MPI_ERROR),
          sizeof(MPI_Comm)};
}

}  // namespace prof::test
