// Median and p95 for the statistics tables (the API and kernel CSVs, the copy statistics, the
// terminal summary, the HTML page), taken from the run profile's histograms (report/profile.hpp)
// as its entries go by. The report keeps one histogram per name, the profile's, however many
// tables show that name: a run of a million kernel names must not hold two (issue 42).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/profile.hpp"
#include "report/stats.hpp"
#include "report/trace_csv.hpp"

namespace prof::report {

class StatsQuantiles {
 public:
  // `api`: each runtime's name ("hip", as ProfileEntry::runtime) and its table; the first table
  // also holds the calls whose API no runtime names (entry runtime "", ApiStatsCollector's
  // with_unnamed). The tables must outlive this and keep their rows; null ones are skipped.
  StatsQuantiles(std::vector<std::pair<std::string, StatsTable*>> api, StatsTable* kernels,
                 std::vector<CopyStats>* copies);
  // Fills the median and p95 of the row that bears the entry's name, if any: a usable
  // ProfileBuilder::EntryVisitor (wrap it in std::ref).
  void operator()(const ProfileEntry& e);

 private:
  // Row indices sorted by name: 4 bytes a row, the rows themselves stay in their order.
  struct Index {
    StatsTable* table = nullptr;
    std::vector<uint32_t> by_name;
  };
  static Index index_of(StatsTable* table);
  static NameStats* find(Index& index, std::string_view name);

  std::vector<std::pair<std::string, Index>> api_;
  Index kernels_;
  std::vector<CopyStats>* copies_;
};

}  // namespace prof::report
