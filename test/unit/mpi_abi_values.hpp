// The MPI ABI facts mpi_abi_test.cpp compares: the real mpi.h's against prof's mpi_abi.hpp's.
#pragma once
#include <cstddef>

namespace prof::test {

struct MpiAbiFacts {
  int success, err_intern, any_source, proc_null;
  size_t status_size, source_offset, tag_offset, error_offset, comm_size;
  bool operator==(const MpiAbiFacts&) const = default;
};

MpiAbiFacts our_mpi_facts();

}  // namespace prof::test
