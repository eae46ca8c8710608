// <base>.<api_csv_stem>.csv (per runtime) and <base>.kernel.csv: one row per name of a StatsTable
// (docs/formats.md).
#pragma once
#include "report/stats.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

void write_stats_csv(const StatsTable& table, TextSink& sink);

}  // namespace prof::report
