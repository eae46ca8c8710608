// A process that ends without its exit handlers (abort, a failed assert, a fault, _exit) still
// keeps the device times of the work that had finished: before it goes, the harvester harvests
// what has completed (timing_harvest_before_end). Nothing else changes: the program dies by the
// same signal, or exits with the same status, as without prof.
#pragma once

namespace prof::interpose {

// Called once, when the harvester starts (there is nothing to save before): for each signal that
// ends a program by its own error (SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL) whose disposition is
// still the default, a handler that harvests, restores the default and raises the signal again.
// A signal the program already handles or ignores is left alone; a handler the program installs
// later replaces prof's.
void install_end_handlers() noexcept;

}  // namespace prof::interpose
