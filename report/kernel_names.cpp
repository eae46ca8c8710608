#include "report/kernel_names.hpp"

#include <algorithm>

#include "report/demangle.hpp"
#include "report/kernel_filter.hpp"

namespace prof::report {

KernelNames::KernelNames(Database& db, const KernelMatcher* matcher) {
  starts_.push_back(0);
  std::vector<int64_t> ids;
  const bool selects = matcher && matcher->filters();
  // --mangled-kernels: the symbol the collector demangled, where the db keeps it (schema 6).
  const bool symbols = matcher && matcher->options().mangled && db.table_exists("kernel_symbols");
  Statement st = db.prepare(
      symbols ? "SELECT s.string_id, COALESCE(k.symbol, s.value), s.value FROM strings s "
                "LEFT JOIN kernel_symbols k USING (string_id) ORDER BY s.string_id"
              : "SELECT string_id, value, value FROM strings ORDER BY string_id");
  while (st.step()) {
    ids.push_back(st.column_int(0));
    const std::string_view stored = st.column_text(1);
    const std::string readable = demangle(st.column_text(2));
    // The regexes see the full demangled name whatever name the reports show.
    if (selects) dropped_.push_back(!matcher->keeps_name(readable));
    text_.append(matcher ? matcher->display_name(stored, readable) : readable);
    starts_.push_back(text_.size());
  }
  if (std::find(dropped_.begin(), dropped_.end(), true) == dropped_.end()) dropped_.clear();
  text_.shrink_to_fit();
  starts_.shrink_to_fit();
  // The collector numbers strings 1, 2, 3, ...: a slot is then the id minus the first, and the
  // ids need not be kept.
  if (!ids.empty()) first_id_ = ids.front();
  if (!ids.empty() && ids.back() - ids.front() != static_cast<int64_t>(ids.size()) - 1) {
    ids.shrink_to_fit();
    ids_ = std::move(ids);
  }
}

std::optional<size_t> KernelNames::slot(int64_t string_id) const {
  if (ids_.empty()) {
    if (string_id < first_id_ || string_id - first_id_ >= static_cast<int64_t>(size()))
      return std::nullopt;
    return static_cast<size_t>(string_id - first_id_);
  }
  auto it = std::lower_bound(ids_.begin(), ids_.end(), string_id);
  if (it == ids_.end() || *it != string_id) return std::nullopt;
  return static_cast<size_t>(it - ids_.begin());
}

}  // namespace prof::report
