#include "cli/outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "cli/exit_codes.hpp"
#include "cli/filter_options.hpp"
#include "cli/merge.hpp"
#include "report/utf8.hpp"
#include "report/report.hpp"
#include "report/report_error.hpp"

namespace prof::cli {

using report::terminal_escaped;
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

namespace {

// --summary-output FILE is opened where another user may have planted something: never through a
// symlink (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK, then a type check), and an existing
// file is replaced only with --force and only when it is this user's and has no other name.
std::FILE* open_summary_file(const std::string& path, bool force, std::string& why) {
  const auto refuse = [&](const std::string& problem) -> std::FILE* {
    why = "--summary-output " + path + ": " + problem;
    return nullptr;
  };
  constexpr int kFlags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int fd = ::open(path.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
  const bool created = fd >= 0;
  if (!created && errno == EEXIST) fd = ::open(path.c_str(), kFlags);
  if (fd < 0) {
    if (errno == ELOOP) return refuse("is a symbolic link; refusing to write through it");
    if (errno == ENXIO) return refuse("is a FIFO or device, not a regular file; not writing it");
    return refuse(std::strerror(errno));
  }
  struct stat st {};
  std::string problem;
  if (fstat(fd, &st) != 0) problem = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) problem = "exists and is not a regular file; not writing it";
  else if (!created && (st.st_uid != geteuid() || st.st_nlink != 1))
    problem = "exists and belongs to another user or has other names; not replacing it";
  else if (!created && st.st_size > 0 && !force)
    problem = "exists; not replacing it (--force replaces it, or name another file)";
  if (problem.empty() && (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, O_WRONLY) != 0)) problem = std::strerror(errno);
  std::FILE* file = problem.empty() ? fdopen(fd, "w") : nullptr;
  if (file) return file;
  if (problem.empty()) problem = std::strerror(errno);
  ::close(fd);
  if (created) unlink(path.c_str());
  return refuse(problem);
}

}  // namespace

std::FILE* summary_file(const Options& o, std::string* why) {
  static std::string error;
  static std::FILE* file = open_summary_file(o.summary_output, o.force, error);
  if (why) *why = error;
  return file;
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
      std::fprintf(stderr, "prof: %s\n",
                   terminal_escaped(o.output_dir + "/" + wanted +
                                    ".* belong to an earlier run: this run's reports are " + base +
                                    ".* (--force replaces)")
                       .c_str());
    try {
      std::fflush(stdout);
      if (dbs.size() > 1 && summary_stream(o)) {
        // Several processes: each summary under a line naming its process, then one over all.
        std::fprintf(summary_stream(o), "%s%s\n", &db == &dbs.front() ? "" : "\n",
                     terminal_escaped(report::process_heading(db.db_path)).c_str());
        std::fflush(summary_stream(o));
      }
      report::ReportOptions options = report_options(o, base);
      options.written_db = db.db_path;
      const report::ReportResult written = report::write_reports(db.db_path, options, summary_stream(o));
      print_warnings(written);
      for (const std::string& failed : written.failed) {
        std::fprintf(stderr, "prof: %s\n", terminal_escaped(failed).c_str());
        lost.push_back("a report of process " + std::to_string(db.pid) + " not written");
      }
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: %s\n", terminal_escaped(e.what()).c_str());
      lost.push_back(std::string("reports of process ") + std::to_string(db.pid) + " not written");
    }
  }
  if (dbs.size() > 1 && summary_stream(o)) {
    std::vector<std::string> paths;
    for (const auto& db : dbs) paths.push_back(db.db_path);
    try {
      std::fputc('\n', summary_stream(o));
      report::write_combined_summary(paths, summary_stream(o), kernel_filter_options(o));
    } catch (const report::ReportError& e) {
      std::fprintf(stderr, "prof: combined summary: %s\n", terminal_escaped(e.what()).c_str());
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
