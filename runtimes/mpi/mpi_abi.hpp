// The MPI C ABI as prof's hooks need it: Open MPI's (Debian's default MPI, libmpi.so.40), whose
// handles are pointers to opaque structs. Facts from Open MPI 4.1's mpi.h; checked against the
// installed header by test/unit/mpi_abi_test.cpp where libopenmpi-dev is installed.
#pragma once
#include <cstddef>

struct ompi_communicator_t;
struct ompi_datatype_t;
struct ompi_op_t;
struct ompi_request_t;
using MPI_Comm = ompi_communicator_t*;
using MPI_Datatype = ompi_datatype_t*;
using MPI_Op = ompi_op_t*;
using MPI_Request = ompi_request_t*;
struct ompi_status_public_t {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int _cancelled;
  size_t _ucount;
};
using MPI_Status = ompi_status_public_t;

inline constexpr int MPI_SUCCESS = 0;
inline constexpr int MPI_ERR_INTERN =
    17;  // what a hook answers when no loaded library defines the function
inline constexpr int MPI_ANY_SOURCE = -1;
inline constexpr int MPI_PROC_NULL = -2;
