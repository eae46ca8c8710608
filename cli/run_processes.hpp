// The processes a program leaves running when it exits: a daemon (double fork + setsid), a
// script's background job, a child still working. prof is their subreaper
// (PR_SET_CHILD_SUBREAPER, set before the program starts), so every descendant that outlives its
// parent becomes prof's child instead of init's, and prof can wait for all of them, whatever
// session or group they moved to, and reap them.
#pragma once
#include <string>
#include <vector>

namespace prof::cli {

// Makes prof the subreaper of everything it starts. Returns false if the kernel refused.
bool become_subreaper();

// Reaps prof's children as they exit until none is left or `limit_s` passed (0: does not wait).
// Returns the pids still running at the end.
std::vector<int> wait_for_descendants(double limit_s);

// The process's name (comm) for messages, "?" when gone.
std::string process_name(int pid);

}  // namespace prof::cli
