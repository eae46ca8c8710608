// Holds prof's MPI table and ABI against Debian's real Open MPI header (libopenmpi-dev). The
// prototypes are checked at compile time: each row of mpi_api.def is redeclared here as extern "C"
// next to the real declaration, and a C function declared twice with different types does not
// compile. Values and layouts are compared at run time with mpi_abi_ours.cpp.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstddef>

#include "test/unit/mpi_abi_values.hpp"

extern "C" {
#define PROF_MPI_API(name, ret, params, ...) ret name params;
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API
}

TEST_CASE("mpi_abi: values and layouts equal Open MPI's") {
  const prof::test::MpiAbiFacts real{MPI_SUCCESS,
                                     MPI_ERR_INTERN,
                                     MPI_ANY_SOURCE,
                                     MPI_PROC_NULL,
                                     sizeof(MPI_Status),
                                     offsetof(MPI_Status, MPI_SOURCE),
                                     offsetof(MPI_Status, MPI_TAG),
                                     offsetof(MPI_Status, MPI_ERROR),
                                     sizeof(MPI_Comm)};
  CHECK(prof::test::our_mpi_facts() == real);
}
