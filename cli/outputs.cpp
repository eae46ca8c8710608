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
#include "cli/output_place.hpp"
#include "cli/path_pattern.hpp"
#include "report/report.hpp"
#include "report/report_error.hpp"
#include "report/utf8.hpp"

namespace prof::cli {

using report::terminal_escaped;
namespace {

volatile sig_atomic_t g_finish_interrupts = 0;

void on_finish_interrupt(int sig) {
  g_finish_interrupts = g_finish_interrupts + 1;
  if (g_finish_interrupts == 1) {
    static const char note[] =
        "\nprof: still writing the profile; interrupt again to stop now (`prof --recover` finishes "
        "it later)\n";
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
  if (fstat(fd, &st) != 0)
    problem = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "exists and is not a regular file; not writing it";
  else if (!created && (st.st_uid != geteuid() || st.st_nlink != 1))
    problem = "exists and belongs to another user or has other names; not replacing it";
  else if (!created && st.st_size > 0 && !force)
    problem = "exists; not replacing it (--force replaces it, or name another file)";
  if (problem.empty() && (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, O_WRONLY) != 0))
    problem = std::strerror(errno);
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

namespace {

// Where one process's reports go and under which base name; its db moves there when -d or -o is
// a pattern. A name an earlier run's reports hold gets the next free <base>.2, .3, ... (unless
// --force). False when the place cannot be made (said on stderr).
bool place_process(const Options& o, collector::CollectedProcess& db, bool launched,
                   OutputPlace& place, std::string& base) {
  std::string message;
  if (!place_outputs(o, process_pattern_values(db.db_path, db.pid), place, message)) {
    std::fprintf(stderr, "prof: %s\n", terminal_escaped(message).c_str());
    return false;
  }
  if (place.dir != o.output_dir) {
    db.db_path = move_db_into(db.db_path, place.dir, o.force, message);
    if (!message.empty()) std::fprintf(stderr, "prof: %s\n", terminal_escaped(message).c_str());
    say_stale_temps_removed(place.dir, remove_stale_temps(place.dir));
  }
  // With %pid% in -d or -o every process has its own names already: no _<pid> suffix.
  const bool named_by_pid = pattern_names_pid(o.output_subdir) || pattern_names_pid(o.output_name);
  const std::string pid = std::to_string(db.pid);
  const std::string wanted = place.name.empty()         ? "result_" + pid
                             : launched || named_by_pid ? place.name
                                                        : place.name + "_" + pid;
  base = wanted;
  for (int n = 2; !o.force && base_taken(place.dir, base); ++n)
    base = wanted + "." + std::to_string(n);
  if (base != wanted)
    std::fprintf(stderr, "prof: %s\n",
                 terminal_escaped(place.dir + "/" + wanted +
                                  ".* belong to an earlier run: this run's reports are " + base +
                                  ".* (--force replaces)")
                     .c_str());
  return true;
}

}  // namespace

int write_outputs(const Options& o, std::vector<collector::CollectedProcess> dbs, int launched_pid,
                  bool output_lost, int exit_status) {
  // The launched process first, then its children, each under its own name.
  std::stable_partition(dbs.begin(), dbs.end(),
                        [&](const auto& d) { return d.pid == launched_pid; });
  std::vector<std::string> lost;
  if (output_lost) lost.push_back("a database could not be written (above)");
  for (auto& db : dbs) {
    OutputPlace place;
    std::string base;
    if (!place_process(o, db, db.pid == launched_pid, place, base)) {
      lost.push_back(std::string("reports of process ") + std::to_string(db.pid) + " not written");
      continue;
    }
    try {
      std::fflush(stdout);
      if (dbs.size() > 1 && summary_stream(o)) {
        // Several processes: each summary under a line naming its process, then one over all.
        std::fprintf(summary_stream(o), "%s%s\n", &db == &dbs.front() ? "" : "\n",
                     terminal_escaped(report::process_heading(db.db_path)).c_str());
        std::fflush(summary_stream(o));
      }
      Options here = o;
      here.output_dir = place.dir;
      report::ReportOptions options = report_options(here, base);
      options.written_db = db.db_path;
      const report::ReportResult written =
          report::write_reports(db.db_path, options, summary_stream(o));
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
    std::fprintf(stderr,
                 "prof: outputs incomplete (%s); exiting %d instead of the program's status %d\n",
                 what.c_str(), kExitCannotWrite, exit_status);
    return kExitCannotWrite;
  }
  return exit_status;
}

}  // namespace prof::cli
