// Per-process files the preload library leaves in the run directory besides its buffers:
// <pid>.<image>.info (who this process is), <pid>.<image>.lost (its unrecorded calls and exit
// time, thread_buffer.cpp) and <pid>.<image>.maps (its memory map, so the collector can name
// kernels from ELF symbol tables after the process is gone).
//
// Written when the process first records, before its first ring exists (so the collector, which
// reads them for a process whose journal it has found, always finds them): a process that never
// calls a traced runtime (the launcher's shell, every `true` and `sed` of a script, a compiler a
// JIT runs) costs no file and no syscall beyond loading the library. Writing them at every load
// (and again in a forked child before its exec) cost each `/bin/true` of a shell loop 0.1-0.2 ms.
#pragma once

namespace prof::interpose {

// Writes this process's files, once (the first thread to record writes them; others wait).
void announce_process() noexcept;
// In a forked child: its files are its own, written when it first records.
void announce_after_fork() noexcept;
// A new snapshot of the memory map (a module was loaded, the process exits); nothing if the
// process has not announced itself (it has recorded nothing the map could name).
void write_maps_snapshot() noexcept;
// <pid>.<image>.clock: key=value lines the collector adds to the db's meta (the MPI clock offsets).
void write_clock_file(const char* text) noexcept;
// This process's rank from the MPI launcher's environment; -1 outside a job.
int mpi_rank() noexcept;

}  // namespace prof::interpose
