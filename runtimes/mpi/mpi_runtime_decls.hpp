// Prototypes of every MPI function in mpi_api.def, declared from the table (test programs and the
// ABI test).
#pragma once
#include "runtimes/mpi/mpi_abi.hpp"

extern "C" {
#define PROF_MPI_API(name, ret, params, ...) ret name params;
#include "runtimes/mpi/mpi_api.def"
#undef PROF_MPI_API
}
