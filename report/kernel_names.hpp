// The readable kernel names of one process, read once from the strings table into one
// contiguous buffer, indexed by string_id. Every pass of the report shares this one copy and keys
// its per-kernel numbers by the dense slot it gives (integers in vectors, not maps of strings),
// so a run of a million distinct names costs their bytes plus a few words each (issue 42).
// Read-only once made: the pipe's threads read it without locks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/sqlite_db.hpp"

namespace prof::report {

class KernelMatcher;  // report/kernel_filter.hpp

class KernelNames {
 public:
  // Reads every row of the selected process's strings table, demangled (report/demangle.hpp), or
  // as `matcher` names them (--truncate-kernels, --mangled-kernels), which also decides once per
  // name whether its kernels are kept (kept_at_slot).
  explicit KernelNames(Database& db, const KernelMatcher* matcher = nullptr);

  // Dense slots 0..size()-1, one per string, in string_id order.
  size_t size() const { return starts_.size() - 1; }
  std::optional<size_t> slot(int64_t string_id) const;
  std::string_view at_slot(size_t slot) const {
    return std::string_view(text_).substr(starts_[slot], starts_[slot + 1] - starts_[slot]);
  }
  // Whether the kernel filters' regexes keep the kernels of this name (always, without them).
  bool kept_at_slot(size_t slot) const { return dropped_.empty() || !dropped_[slot]; }
  // nullopt for an id the table does not hold.
  std::optional<std::string_view> find(int64_t string_id) const {
    if (auto s = slot(string_id)) return at_slot(*s);
    return std::nullopt;
  }
  // The name the reports write for kernel name `string_id`: its string, or "unknown kernel N"
  // (made in `scratch`) for an id the table lacks.
  std::string_view name_or_unknown(int64_t string_id, std::string& scratch) const {
    if (auto s = slot(string_id)) return at_slot(*s);
    scratch = "unknown kernel " + std::to_string(string_id);
    return scratch;
  }

 private:
  std::string text_;            // the names, back to back
  std::vector<size_t> starts_;  // slot -> offset in text_; one more than there are slots
  int64_t first_id_ = 0;        // ids are dense from first_id_ when ids_ is empty
  std::vector<int64_t> ids_;    // slot -> string_id, only when the ids have gaps
  std::vector<bool> dropped_;   // slot -> left out by the regexes; empty when nothing is
};

}  // namespace prof::report
