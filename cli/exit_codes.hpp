// prof's own exit codes. A run otherwise exits with the program's status (128+N when the
// program was killed by signal N), exactly as a shell would report it.
#pragma once

namespace prof::cli {

inline constexpr int kExitUsage = 2;  // bad option or argument
// --db with an --index-range that holds none of the db's calls: a well-formed request with nothing
// to report, which a script looping over ranges tells apart from a typo (2).
inline constexpr int kExitEmptyRange = 3;
inline constexpr int kExitBadInput = 65;     // --db/--db-merge input is not a usable prof database
inline constexpr int kExitNoInput = 66;      // --db/--db-merge input does not exist
inline constexpr int kExitCannotWrite = 73;  // outputs could not be written
inline constexpr int kExitProfFailed = 125;  // prof could not launch the program (nothing ran)
inline constexpr int kExitNotExecutable = 126;  // the program exists but cannot be executed
inline constexpr int kExitNotFound = 127;       // the program was not found

}  // namespace prof::cli
