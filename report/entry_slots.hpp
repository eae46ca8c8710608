// The entries of a run's numbers, keyed (kind, runtime, name): "api" per runtime and function,
// "kernel" per demangled name (or "unknown kernel at 0x..."), "copy" per direction. EntrySlots
// resolves one process's ids to those keys once per id and hands back the entry of a map the
// caller owns, so report/profile.cpp (totals and histograms) and report/compare_samples.cpp
// (per-call durations) name every entry the same way and their keys agree.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "db/sqlite_db.hpp"
#include "report/demangle.hpp"
#include "report/event_pass.hpp"
#include "report/kernel_names.hpp"

namespace prof::report {

using EntryKey = std::tuple<std::string, std::string, std::string>;  // kind, runtime, name

template <typename Value>
class EntrySlots {
 public:
  EntrySlots(Database& db, std::map<EntryKey, Value>& out) : db_(db), out_(out) {
    Statement st = db.prepare(
        "SELECT n.api_id, COALESCE(r.name, ''), n.name FROM api_names n LEFT JOIN runtimes r ON "
        "r.runtime_id = "
        "n.runtime_id");
    while (st.step())
      api_names_[st.column_int(0)] = {std::string(st.column_text(1)),
                                      std::string(st.column_text(2))};
    Statement d = db.prepare("SELECT direction, name FROM copy_directions");
    while (d.step()) direction_names_[d.column_int(0)] = d.column_text(1);
  }

  Value& api(const ApiRow& r) {
    Value*& v = apis_[r.api_id];
    if (!v) {
      auto it = api_names_.find(r.api_id);
      v = &out_[it != api_names_.end()
                    ? EntryKey{"api", it->second.first, it->second.second}
                    : EntryKey{"api", "", "unknown API " + std::to_string(r.api_id)}];
    }
    return *v;
  }

  Value& kernel(const KernelRow& r) {
    const int64_t id = r.name_id ? *r.name_id : r.function_address;
    Value*& v = r.name_id ? kernel_names_[id] : kernel_addresses_[id];
    if (!v) {
      std::string text;
      if (r.names && r.name_id) {
        std::string unknown;
        // The pipe's names (report/event_pipe.hpp).
        text = r.names->name_or_unknown(*r.name_id, unknown);
      } else if (r.name_id) {
        Statement name = db_.prepare("SELECT value FROM strings WHERE string_id = ?1");
        name.bind(1, id);
        text = name.step() ? demangle(name.column_text(0)) : "unknown kernel " + std::to_string(id);
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "unknown kernel at 0x%llx",
                      static_cast<unsigned long long>(id));
        text = buf;
      }
      v = &out_[EntryKey{"kernel", "", std::move(text)}];
    }
    return *v;
  }

  Value& copy(const CopyRow& r) {
    Value*& v = copies_[r.direction];
    if (!v) {
      auto it = direction_names_.find(r.direction);
      v = &out_[EntryKey{
          "copy", "",
          it != direction_names_.end() ? it->second : "Direction " + std::to_string(r.direction)}];
    }
    return *v;
  }

 private:
  Database& db_;
  std::map<EntryKey, Value>& out_;
  std::map<int64_t, std::pair<std::string, std::string>> api_names_;  // api_id -> runtime, name
  std::map<int64_t, std::string> direction_names_;
  std::map<int64_t, Value*> apis_, kernel_names_, kernel_addresses_, copies_;
};

}  // namespace prof::report
