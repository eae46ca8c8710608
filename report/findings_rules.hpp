// The findings rules (docs/findings.md): each is one function, listed once in report/findings.cpp.
// A process rule reads one process and appends its findings with everything but the rule's name,
// the process and the share, which analyze() fills in.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "report/findings.hpp"
#include "report/findings_data.hpp"

namespace prof::report::findings {

using ProcessRule = void (*)(const ProcessData& process, const AnalyzeOptions& options,
                             std::vector<Finding>& out);

// What the rules across processes need of each one.
struct ProcessTotals {
  int64_t process_id = 0, pid = 0;
  std::optional<int64_t> rank;
  int64_t device_busy_ns = 0;   // the union of its work, summed over its devices
  int64_t host_runtime_ns = 0;  // time in calls of host runtimes (MPI)
};
ProcessTotals process_totals(const ProcessData& process);

using RunRule = void (*)(const std::vector<ProcessTotals>& processes, const AnalyzeOptions& options,
                         std::vector<Finding>& out);

// report/findings_host_rules.cpp: patterns of the calls.
void sync_copy(const ProcessData& process, const AnalyzeOptions& options,
               std::vector<Finding>& out);
void sync_after_launch(const ProcessData& process, const AnalyzeOptions& options,
                       std::vector<Finding>& out);
void alloc_churn(const ProcessData& process, const AnalyzeOptions& options,
                 std::vector<Finding>& out);
void api_errors(const ProcessData& process, const AnalyzeOptions& options,
                std::vector<Finding>& out);
void pageable_copy(const ProcessData& process, const AnalyzeOptions& options,
                   std::vector<Finding>& out);

// report/findings_device_rules.cpp: gaps in a device's work.
void device_idle(const ProcessData& process, const AnalyzeOptions& options,
                 std::vector<Finding>& out);
// report/findings_stream_rules.cpp: patterns of the work of each stream.
void launch_bound(const ProcessData& process, const AnalyzeOptions& options,
                  std::vector<Finding>& out);
void small_copies(const ProcessData& process, const AnalyzeOptions& options,
                  std::vector<Finding>& out);
void serialized_stream(const ProcessData& process, const AnalyzeOptions& options,
                       std::vector<Finding>& out);

// report/findings_rank_rules.cpp: across the ranks of a merged db.
void rank_imbalance(const std::vector<ProcessTotals>& processes, const AnalyzeOptions& options,
                    std::vector<Finding>& out);

}  // namespace prof::report::findings
