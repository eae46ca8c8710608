#include "cli/outputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli/exit_codes.hpp"
#include "cli/merge.hpp"
#include "report/report.hpp"
#include "report/report_error.hpp"

namespace prof::cli {
namespace {

volatile sig_atomic_t g_finish_interrupts = 0;

void on_finish_interrupt(int sig) {
  g_finish_interrupts = g_finish_interrupts + 1;
  if (g_finish_interrupts == 1) {
    static const char note[] =
        "\nprof: still writing the profile; interrupt again to stop now (`prof --recover` finishes it later)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
    return;
  }
  static const char note[] = "\nprof: stopped; `prof --recover` finishes this run's profile\n";
  ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
  (void)ignored;
  _exit(128 + sig);
}

}  // namespace

void guard_the_finish() {
  struct sigaction sa {};
  sa.sa_handler = on_finish_interrupt;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGQUIT}) sigaction(sig, &sa, nullptr);
}

int write_outputs(const Options& o, std::vector<collector::CollectedProcess> dbs, int launched_pid, bool output_lost,
                  int exit_status) {
  // The launched process first, then its children, each under its own name. A name an earlier
  // run's reports hold gets the next free <base>.2, .3, ... (unless --force).
  std::stable_partition(dbs.begin(), dbs.end(), [&](const auto& d) { return d.pid == launched_pid; });
  std::vector<std::string> lost;
  if (output_lost) lost.push_back("a database could not be written (above)");
  for (const auto& db : dbs) {
    const std::string wanted = o.output_name.empty() ? "result_" + std::to_string(db.pid)
                               : db.pid == launched_pid ? o.output_name
                                                      : o.output_name + "_" + std::to_string(db.pid);
    std::string base = wanted;
    for (int n = 2; !o.force && base_taken(o.output_dir, base); ++n) base = wanted + "." + std::to_string(n);
    if (base != wanted)
      std::fprintf(stderr, "prof: %s/%s.* belong to an earlier run: this run's reports are %s.* (--force replaces)\n",
                   o.output_dir.c_str(), wanted.c_str(), base.c_str());
    try {
      std::fflush(stdout);
      if (dbs.size() > 1 && summary_stream(o)) {
        // Several processes: each summary under a line naming its process, then one over all.
        std::fprintf(summary_stream(o), "%s%s\n", &db == &dbs.front() ? "" : "\n",
                     report::process_heading(db.db_path).c_str());
        std::fflush(summary_stream(o));
      }
      const report::ReportResult written = report::write_reports(db.db_path, report_options(o, base), summary_stream(o));
      print_warnings(written);
      for (const std::string& failed : written.failed) {
        std::fprintf(stderr, "prof: %s\n", failed.c_str());
        lost.push_back("a report of process " + std::to_string(db.pid) + " not written");
      }
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: %s\n", e.what());
      lost.push_back(std::string("reports of process ") + std::to_string(db.pid) + " not written");
    }
  }
  if (dbs.size() > 1 && summary_stream(o)) {
    std::vector<std::string> paths;
    for (const auto& db : dbs) paths.push_back(db.db_path);
    try {
      std::fputc('\n', summary_stream(o));
      report::write_combined_summary(paths, summary_stream(o));
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: combined summary: %s\n", e.what());
    }
  }
  if (!lost.empty()) {
    // A lost profile must not look like a good one to a script: prof's own "cannot write" status.
    std::string what;
    for (const std::string& l : lost) what += (what.empty() ? "" : "; ") + l;
    std::fprintf(stderr, "prof: outputs incomplete (%s); exiting %d instead of the program's status %d\n",
                 what.c_str(), kExitCannotWrite, exit_status);
    return kExitCannotWrite;
  }
  return exit_status;
}

}  // namespace prof::cli
