#include "report/stats_quantiles.hpp"

#include <algorithm>
#include <functional>

namespace prof::report {

StatsQuantiles::StatsQuantiles(std::vector<std::pair<std::string, StatsTable*>> api,
                               StatsTable* kernels, std::vector<CopyStats>* copies)
    : kernels_(index_of(kernels)), copies_(copies) {
  for (auto& [runtime, table] : api) api_.emplace_back(runtime, index_of(table));
}

StatsQuantiles::Index StatsQuantiles::index_of(StatsTable* table) {
  Index index;
  index.table = table;
  if (!table) return index;
  index.by_name.resize(table->rows.size());
  for (size_t i = 0; i < index.by_name.size(); ++i) index.by_name[i] = static_cast<uint32_t>(i);
  const std::vector<NameStats>& rows = table->rows;
  std::sort(index.by_name.begin(), index.by_name.end(),
            [&](uint32_t a, uint32_t b) { return rows[a].name < rows[b].name; });
  return index;
}

NameStats* StatsQuantiles::find(Index& index, std::string_view name) {
  if (!index.table) return nullptr;
  std::vector<NameStats>& rows = index.table->rows;
  auto it =
      std::lower_bound(index.by_name.begin(), index.by_name.end(), name,
                       [&](uint32_t row, std::string_view key) { return rows[row].name < key; });
  return it != index.by_name.end() && rows[*it].name == name ? &rows[*it] : nullptr;
}

void StatsQuantiles::operator()(const ProfileEntry& e) {
  NameStats* row = nullptr;
  if (e.kind == "kernel") {
    row = find(kernels_, e.name);
  } else if (e.kind == "api" && !api_.empty()) {
    auto runtime =
        std::find_if(api_.begin(), api_.end(), [&](const auto& a) { return a.first == e.runtime; });
    row = find(runtime != api_.end() ? runtime->second : api_.front().second, e.name);
  } else if (e.kind == "copy" && copies_) {
    for (CopyStats& s : *copies_) {
      if (s.direction != e.name) continue;
      s.median_ns = e.median_ns;
      s.p95_ns = e.p95_ns;
    }
  }
  if (!row) return;
  row->median_ns = e.median_ns;
  row->p95_ns = e.p95_ns;
}

}  // namespace prof::report
