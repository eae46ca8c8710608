// Per-process files the preload library leaves in the run directory besides its buffers:
// <pid>.<image>.info (who this process is) and <pid>.<image>.maps (its memory map, so the
// collector can name kernels from ELF symbol tables after the process is gone).
#pragma once

namespace prof::interpose {

void write_info_file() noexcept;
void write_maps_snapshot() noexcept;
// <pid>.<image>.clock: key=value lines the collector adds to the db's meta (the MPI clock offsets).
void write_clock_file(const char* text) noexcept;
// This process's rank from the MPI launcher's environment; -1 outside a job.
int mpi_rank() noexcept;

}  // namespace prof::interpose
