// MPI as prof's runtime-neutral core names it: a runtime without devices, whose calls take their
// own lane on each thread and carry named arguments (peer, tag, comm_size).
#pragma once
#include "runtimes/runtime_description.hpp"

namespace prof {

inline constexpr std::string_view kMpiArgNames[] = {"peer", "tag", "comm_size"};

// mpi-prof-<pid>.db (prof-<pid>.db with a device runtime beside it), <base>.mpitrace.csv.
// No stream or device labels: MPI has no device lanes (communicators are its "streams" in the db).
inline constexpr RuntimeDescription kMpiDescription{
    RuntimeId::kMpi, "mpi", "MPI", "", "", "mpitrace", {}, {}, {}, "MPI", kMpiArgNames};

}  // namespace prof
