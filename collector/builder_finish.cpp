// The builder's finish: every database completed once the program has ended, with what the
// process could not record (its lost pages, the rings' drop counters) said in it and in the errors.
#include "collector/builder.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "collector/run_files.hpp"
#include "common/clock.hpp"

namespace prof::collector {

namespace {

// Every switch of capture control the process logged (<pid>.<image>.capture of each image).
std::vector<CaptureSwitch> read_capture_switches(const std::string& run_dir, int pid) {
  std::vector<CaptureSwitch> switches;
  DIR* dir = opendir(run_dir.c_str());
  if (!dir) return switches;
  while (dirent* entry = readdir(dir)) {
    int p = 0;
    uint64_t image = 0;
    if (!parse_name(entry->d_name, "capture", p, image, nullptr) || p != pid) continue;
    std::ifstream in(run_dir + "/" + entry->d_name, std::ios::binary);
    std::vector<char> bytes(sizeof(CaptureLog));
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) continue;
    uint32_t claimed = 0;
    std::memcpy(&claimed, bytes.data(), sizeof claimed);
    const size_t offset = offsetof(CaptureLog, entries);
    for (uint32_t k = 0; k < std::min(claimed, kCaptureLogEntries); ++k) {
      const char* at = bytes.data() + offset + k * sizeof(CaptureSwitch);
      CaptureSwitch s;
      std::memcpy(&s.time_ns, at, sizeof s.time_ns);
      s.on = static_cast<uint8_t>(at[8]);
      s.cause = static_cast<uint8_t>(at[9]);
      std::memcpy(&s.api_id, at + 10, sizeof s.api_id);
      uint32_t written = 0;
      std::memcpy(&written, at + 12, sizeof written);
      if (written == 1) switches.push_back(s);
    }
  }
  closedir(dir);
  return switches;
}

// <pid>.<image>.clock: the MPI clock offsets the preload measured (interpose/mpi_clock.cpp).
void set_clock_meta(DbWriter& writer, const std::string& maps_path) {
  const std::string clock_path = maps_path.substr(0, maps_path.size() - 5) + ".clock";
  std::FILE* clock = std::fopen(clock_path.c_str(), "r");
  if (!clock) return;
  char line[256];
  while (std::fgets(line, sizeof line, clock)) {
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    const size_t eq = text.find('=');
    if (eq != std::string::npos && text.rfind("clock_", 0) == 0)
      writer.set_meta(text.substr(0, eq), text.substr(eq + 1));
  }
  std::fclose(clock);
}

}  // namespace

std::vector<CollectedProcess> Builder::finish(const std::vector<int>& cut_short,
                                              const std::map<int, uint64_t>& unjournaled) {
  std::lock_guard lock(build_mutex_);
  std::vector<CollectedProcess> done;
  const uint64_t end_ns = now_ns();
  for (auto& [pid, proc] : processes_) {
    const LostTally lost = account_lost(pid);
    const DropCounts drops = drops_of(pid, cut_short, lost);
    if (auto it = unjournaled.find(pid); it != unjournaled.end()) {
      proc.records_not_written += it->second;
      proc.failed = true;
    }
    // Drops are also in the database and its summary; said here too, in case neither was written.
    if (drops.records || drops.device_timings)
      shared_.add_error("process " + std::to_string(pid) + ": " + std::to_string(drops.records) +
                        " records dropped (ring full, PROF_BUFFER_WAIT_MS passed), " +
                        std::to_string(drops.device_timings) + " device timings dropped");
    if (proc.writer) finish_database(pid, proc, drops, lost.exit_ns, end_ns, done);
    if (proc.failed) {
      struct stat st;
      const bool kept = stat(proc.db_path.c_str(), &st) == 0;
      shared_.add_error(proc.db_path + ": " + std::to_string(proc.records_not_written) +
                        " records of process " + std::to_string(pid) + " not written" +
                        (kept ? "; the database holds what was committed before the failure" : ""));
    }
    proc.writer.reset();
  }
  account_processes_without_db();
  return done;
}

DropCounts Builder::drops_of(int pid, const std::vector<int>& cut_short, const LostTally& lost) {
  DropCounts drops;
  drops.cut_short = std::find(cut_short.begin(), cut_short.end(), pid) != cut_short.end();
  drops.unrecorded_calls = lost.calls;
  drops.crowded_calls = lost.crowded_calls;
  drops.nested_calls = lost.nested_calls;
  // Every ring's counters are in its journal's header (the mover copies them each cycle).
  for (auto& [name, source] : sources_) {
    if (source->pid != pid) continue;
    source->reader.refresh();
    drops.records += source->reader.header().dropped;
    drops.device_timings += source->reader.header().timing_dropped;
    drops.full_waits += source->reader.header().full_waits;
    drops.self_moves += source->reader.header().self_moves;
  }
  return drops;
}

void Builder::finish_database(int pid, Process& proc, const DropCounts& drops, uint64_t exit_ns,
                              uint64_t end_ns, std::vector<CollectedProcess>& done) {
  try {
    set_clock_meta(*proc.writer, proc.maps_path);
    if (exit_ns) proc.writer->set_process_end(exit_ns);
    if (!options_.capture_control.empty()) {
      proc.writer->set_meta("capture_control", options_.capture_control);
      proc.writer->set_capture_windows(read_capture_switches(options_.run_dir, pid));
    }
    proc.writer->finalize(proc.maps_path, drops, end_ns);
    const bool several = proc.writer->runtimes_called() > 1;
    proc.writer.reset();  // closes the file before a rename
    const std::string stem = options_.output_dir + "/prof-" + std::to_string(pid);
    if (several &&
        proc.db_path.rfind(stem + ".", 0) != 0) {  // (a recovered one may have it already)
      std::string renamed = free_name(stem, ".db", options_.replace_existing);
      if (std::rename(proc.db_path.c_str(), renamed.c_str()) == 0)
        proc.db_path = renamed;
      else
        shared_.add_error(proc.db_path + ": cannot rename to " + renamed + ": " +
                          std::strerror(errno));
      note_db_path(pid, proc.db_path);
    }
    done.push_back({pid, proc.db_path});
  } catch (const std::exception& e) {
    fail_process(proc, e);
  }
}

// A process none of whose threads got a ring has no database: its loss is said here.
void Builder::account_processes_without_db() {
  std::vector<int> said;
  for (const std::string* base : {&options_.run_dir, &options_.fallback_run_dir}) {
    DIR* dir = base->empty() ? nullptr : opendir(base->c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      int pid = 0;
      uint64_t image = 0;
      if (!parse_name(entry->d_name, "lost", pid, image, nullptr) || processes_.count(pid) ||
          std::find(said.begin(), said.end(), pid) != said.end())
        continue;
      said.push_back(pid);
      account_lost(pid);
    }
    closedir(dir);
  }
}

Builder::LostTally Builder::lost_calls(int pid) const {
  LostTally lost;
  // A process whose run directory was full made its page in the fallback
  // (interpose/thread_buffer.cpp).
  for (const std::string* base : {&options_.run_dir, &options_.fallback_run_dir}) {
    DIR* dir = base->empty() ? nullptr : opendir(base->c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      int p = 0;
      uint64_t image = 0;
      if (!parse_name(entry->d_name, "lost", p, image, nullptr) || p != pid) continue;
      uint64_t counts[6] = {};  // LostCounts, common/record.hpp
      static_assert(sizeof counts == sizeof(LostCounts));
      std::ifstream in(*base + "/" + entry->d_name, std::ios::binary);
      if (in.read(reinterpret_cast<char*>(counts), sizeof counts)) {
        lost.calls += counts[0];
        lost.threads += counts[1];
        lost.exit_ns = std::max(lost.exit_ns, counts[2]);
        lost.nested_calls += counts[3];
        lost.crowded_threads += counts[4];
        lost.crowded_calls += counts[5];
      }
    }
    closedir(dir);
  }
  return lost;
}

std::string Builder::unrecorded_message(const std::string& who, const LostTally& lost) {
  std::string line;
  if (lost.calls || lost.threads)
    line = who + std::to_string(lost.calls) + " calls on " + std::to_string(lost.threads) +
           " threads not recorded (no room for their rings in the run directory)";
  if (lost.crowded_calls || lost.crowded_threads)
    line += (line.empty() ? who : "; ") + std::to_string(lost.crowded_calls) + " calls on " +
            std::to_string(lost.crowded_threads) +
            " threads not recorded: more than 4096 of its threads were alive at once, and prof "
            "records at most "
            "4096 threads of a process at a time";
  return line;
}

Builder::LostTally Builder::account_lost(int pid) {
  const LostTally lost = lost_calls(pid);
  unrecorded_calls_ += lost.calls + lost.crowded_calls;
  if (std::string line = unrecorded_message("process " + std::to_string(pid) + ": ", lost);
      !line.empty())
    shared_.add_error(line);
  return lost;
}

}  // namespace prof::collector
