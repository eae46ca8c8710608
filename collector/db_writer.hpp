// Turns one process's records into its database (<runtime>-prof-<pid>.db): prepared statements,
// one transaction per drain cycle. Owns the per-process state that records refer to: the
// stream numbering, kernel names by address, device timings that arrived before their call.
#pragma once
#include <sys/types.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collector/process_info.hpp"
#include "common/record.hpp"
#include "db/sqlite_db.hpp"
#include "runtimes/api_id.hpp"

namespace prof::collector {

struct DropCounts {
  uint64_t records = 0;         // ring full with no reader progress
  uint64_t device_timings = 0;  // the hook could not queue a timing request
  uint64_t unmatched_timings = 0;
  uint64_t full_waits = 0;  // not drops: times a producer waited for the collector (back-pressure)
  uint64_t self_moves = 0;  // not drops: times a producer moved its own records into the journal
  bool cut_short = false;
  uint64_t nested_calls = 0;  // traced calls inside another's hook (signal handlers): LostCounts
  uint64_t unrecorded_calls = 0;
  uint64_t crowded_calls =
      0;  // calls on threads beyond the 4096 a process records at once  // traced calls on threads
          // that got no ring    // the process was still running when prof stopped recording
};

class DbWriter {
 public:
  // Creates the database; an existing file is replaced only if it is a prof database.
  // `first_runtime`: the runtime of the process's first traced call (it names the database).
  DbWriter(const std::string& path, int pid, const std::string& prof_version,
           RuntimeId first_runtime);
  const std::string& path() const { return db_.path(); }

  void set_process_info(const ProcessInfo& info);
  void set_meta(const std::string& key, const std::string& value);
  void begin_batch();
  // Commits the batch. A reader holding the database (sqlite3, or prof --db, on the db of a
  // program still running) can keep the commit from its lock: then the batch stays open, to be
  // committed by a later end_batch with what came since, and this returns false. `must` (the
  // db's completion): waits for the reader up to a minute instead, then throws.
  bool end_batch(bool must = false);
  // After a failed batch: rolls it back, so the file holds exactly the batches committed before.
  void abandon() noexcept;

  void add_thread(uint32_t tid, uint64_t thread_index, uint64_t created_ns);
  // `correlation_base` separates program images that shared this pid (exec).
  void on_api(const ApiRecord& r, uint32_t tid, uint64_t correlation_base,
              const LaunchRecord* launch);
  void on_activity(const ActivityRecord& r, uint64_t correlation_base);
  // A call's named arguments (api_args), named by its runtime's description: they come before
  // the call's own record on its thread `tid`, and go in with it.
  void on_args(const ArgsRecord& r, uint32_t tid);
  void on_string(StringKind kind, uint64_t key, const std::string& text);
  // A roctx/mstx marker (`message` already assembled from its continuations): a mark is a row; a
  // push or start opens one, which the matching pop (same thread, same level) or stop (same id,
  // any thread) closes.
  void on_marker(const MarkerRecord& r, const std::string& message, uint32_t tid);
  // The capture windows (--trace-start off, --delay, --duration) from the switches the process
  // logged (common/record.hpp CaptureLog), in any order; a window still open ends at the process's
  // last recorded time. Call before finalize().
  void set_capture_windows(std::vector<CaptureSwitch> switches);
  // When the process exited (its atexit handler), if it did: ranges and windows left open end here
  // (else at the latest time any of its records holds). Call before the two above end anything.
  void set_process_end(uint64_t exit_ns) { last_ns_ = std::max(last_ns_, exit_ns); }

  // Names the kernels still unnamed (ELF fallback over the given maps), numbers the calls,
  // writes end time and drop counts. The database is complete afterwards.
  void finalize(const std::string& maps_path, const DropCounts& drops, uint64_t end_ns);
  // How many runtimes the process called (a database with more than one is renamed prof-<pid>.db).
  size_t runtimes_called() const;

 private:
  int64_t intern(const std::string& text);
  // A kernel's name: its symbol demangled, interned, and the symbol kept in kernel_symbols when
  // demangling changed it (--mangled-kernels shows it).
  int64_t intern_kernel_name(const std::string& symbol);
  int64_t stream_index(RuntimeId runtime, uint64_t handle, uint64_t device, bool created);
  std::optional<int64_t> kernel_name_id(uint64_t function);
  void note_runtime(RuntimeId id);
  void insert_args(const ArgsRecord& r, int64_t correlation_id);
  // on_api's two steps: the call's api_calls row (its sequence number while calls arrive in
  // order), and the kernel or copy it started on the device.
  void add_api_row(const ApiRecord& r, uint32_t tid, uint64_t hook_corr, int64_t corr,
                   std::optional<int64_t> stream);
  void insert_device_work(const ApiRecord& r, HookActivity activity, int64_t stream_idx,
                          uint64_t hook_corr, int64_t corr, const LaunchRecord* launch);

  std::array<bool, kRuntimeCount> runtimes_called_{};

  // api_calls rows go in kApiRowsPerInsert at a time (one statement of that many VALUES rows):
  // a third less SQLite time per row than one statement per row. Pending rows are written before
  // anything reads api_calls and before every commit.
  static constexpr int kApiRowsPerInsert = 64;
  static constexpr int kApiColumns = 10;  // the id is the rowid SQLite gives (api_insert_sql)
  static constexpr int kStreamColumn = 5,
                       kSequenceColumn = 9;  // NULL unless has_stream / has_sequence
  struct ApiRow {
    int64_t values[kApiColumns];  // in the statement's column order
    bool has_stream, has_sequence;
  };
  void flush_api_rows();

  Database db_;
  dev_t db_device_ = 0;  // the database file as created: finalize() writes it back under its name
  ino_t db_inode_ = 0;   // if the name no longer leads to it (the output directory was removed)
  std::vector<ApiRow> api_rows_;
  Statement insert_api_, insert_api_rows_, insert_kernel_, insert_copy_, update_kernel_time_,
      update_copy_time_;
  Statement insert_string_, find_string_, insert_stream_, insert_thread_, upsert_meta_,
      insert_args_;
  std::unordered_map<std::string, int64_t> strings_;
  struct StreamEntry {
    int64_t index;
    bool created;
  };
  std::map<std::pair<RuntimeId, uint64_t>, StreamEntry> streams_;  // by runtime and handle
  int64_t next_stream_index_ = 1;
  std::unordered_map<uint64_t, int64_t> kernel_names_;  // function address / handle -> string id
  // Keyed by the hook's correlation id (correlation_base | the record's id), which only the
  // records know; the db's ids are numbered on insert (next_id_).
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>>
      early_timings_;  // hook corr -> begin, end
  std::unordered_map<uint64_t, int64_t>
      awaiting_timing_;  // hook corr -> db corr of a kernel or copy
  std::unordered_map<uint32_t, std::vector<ArgsRecord>>
      pending_args_;  // by thread: its next call's
  int64_t next_id_ = 1;
  uint64_t first_ns_ = UINT64_MAX;
  uint64_t last_ns_ = 0;  // the latest time any record of the process holds: open ranges end here

  Statement insert_marker_, close_marker_;
  struct OpenPush {
    int64_t level;
    int64_t marker_id;
  };
  std::unordered_map<uint32_t, std::vector<OpenPush>> push_stacks_;  // by thread
  std::map<std::pair<std::string, int64_t>, int64_t> open_ranges_;   // (source, id) -> marker_id
  std::map<std::pair<std::string, int64_t>, std::pair<uint64_t, uint32_t>>
      early_stops_;  // -> time, thread
  bool in_batch_ = false;
  // sequence numbers (the ids) given on insert while calls arrive in (begin, thread, correlation)
  // order
  bool in_order_ = true;
  std::tuple<uint64_t, uint32_t, uint64_t> last_key_{};
};

}  // namespace prof::collector
