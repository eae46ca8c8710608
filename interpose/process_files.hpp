// Per-process files the preload library leaves in the run directory besides its buffers:
// <pid>.<image>.info (who this process is) and <pid>.<image>.maps (its memory map, so the
// collector can name kernels from ELF symbol tables after the process is gone).
#pragma once

namespace prof::interpose {

void write_info_file() noexcept;
void write_maps_snapshot() noexcept;

}  // namespace prof::interpose
