// prof: run a program under the profiler, or regenerate reports from a database.
#include <unistd.h>

#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/filter_options.hpp"
#include "cli/help_format.hpp"
#include "cli/launcher.hpp"
#include "cli/merge.hpp"
#include "cli/options.hpp"
#include "cli/outputs.hpp"
#include "cli/recovery.hpp"
#include "cli/run_directory.hpp"
#include "cli/run_processes.hpp"
#include "cli/runtime_flags.hpp"
#include "collector/collector.hpp"
#include "common/env_value.hpp"
#include "report/utf8.hpp"
#include "runtimes/api_id.hpp"

namespace prof::cli {

using report::terminal_escaped;
namespace {

// The processes of one run share its id (meta run_id): `prof --compare` treats a folder's dbs with
// one id as one run. Ranks started by one MPI job share the job's id, even with a prof per rank.
std::string make_run_id() {
  for (const char* job : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "SLURM_JOB_ID"}) {
    const char* value = getenv(job);
    if (!value || !*value) continue;
    std::string id = std::string("job:") + value;
    if (const char* step = getenv("SLURM_STEP_ID"); step && std::string(job) == "SLURM_JOB_ID")
      id += "." + std::string(step);
    return id;
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return std::string("prof:") + host + ":" + std::to_string(getpid()) + ":" +
         std::to_string(static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec);
}

// The variables prof passes through to the preload library (and those it reads itself), checked
// before anything is launched or created: a value the library would ignore with a warning is
// refused here with one line naming it (common/env_value.hpp holds the ranges).
bool check_environment(std::string& message) {
  char why[256];
  uint64_t ignored = 0;
  for (const prof::EnvNumber& v :
       {prof::kEnvBufferRecords, prof::kEnvBufferWaitMs, prof::kEnvSelfMove})
    if (!prof::read_env_number(v, getenv(v.name), ignored, why, sizeof why))
      return message = why, false;
  for (const prof::EnvWord& w : prof::kEnvWords)
    if (std::string(w.name) != "PROF_CAPTURE" &&
        !prof::read_env_word(w, getenv(w.name), why, sizeof why))
      return message = why, false;
  long rank = 0;
  long long skew_ns = 0;
  if (!prof::read_env_clock_skew(getenv("PROF_TEST_CLOCK_SKEW"), rank, skew_ns, why, sizeof why))
    return message = why, false;
  if (const char* pause = getenv("PROF_TEST_PAUSE");
      pause && *pause && std::strcmp(pause, "build") != 0 && std::strcmp(pause, "reports") != 0)
    return message =
               "PROF_TEST_PAUSE=" + std::string(pause) + ": expected build or reports, or unset",
           false;
  // The run directory's path goes to the library in a 512-byte field: a longer one would leave the
  // program unrecorded without a word.
  if (const char* tmp = getenv("TMPDIR"); tmp && *tmp && (tmp[0] != '/' || std::strlen(tmp) > 400))
    return message = "TMPDIR=" + std::string(tmp) +
                     ": expected an absolute path of at most 400 characters",
           false;
  return true;
}

// Every numeric option is read whole and held to its range here, with one line naming the range:
// a number past int64 (99999999999999999999) saturated silently, and a huge --wait-timeout
// overflowed the deadline's nanoseconds into one already past.
constexpr long long kMaxJsonEvents = 1'000'000'000'000LL;
constexpr double kMaxWaitTimeoutS = 1'000'000;  // 11.6 days; the deadline is in int64 ns

CLI::Validator whole_number_in(long long low, long long high, const char* unit) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long n = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || n < low || n > high)
          return "expected a whole number of " + std::string(unit) + ", at least " +
                 std::to_string(low) + " and at most " + std::to_string(high);
        return "";
      },
      "");  // the option's type_name is its placeholder
}

CLI::Validator output_formats() {
  return CLI::Validator([](std::string& text) -> std::string { return output_format_error(text); },
                        "");
}

CLI::Validator seconds_up_to(double high) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double s = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(s) || s < 0 ||
            s > high)
          return "expected a number of seconds from 0 to " +
                 std::to_string(static_cast<long long>(high));
        return "";
      },
      "");
}

// Checks what a run needs and says how to launch the program: 0, or the exit code of the failure
// (already said).
int prepare_launch(Options& o, std::string& program, LaunchOptions& launch) {
  std::string message;
  if (!check_environment(message)) return fail(kExitUsage, message);
  if (!prepare_output_dir(o.output_dir, message)) return fail(kExitCannotWrite, message);
  say_stale_temps_removed(o.output_dir, remove_stale_temps(o.output_dir));
  int not_found_code = 0;
  program = resolve_program(o.program[0], not_found_code, message);
  if (program.empty()) return fail(not_found_code, message);

  const std::string prefix = install_prefix();
  launch.argv = o.program;
  launch.preload_library = prefix + "/lib/prof/libprof_preload.so";
  if (access(launch.preload_library.c_str(), R_OK) != 0)
    return fail(kExitProfFailed,
                launch.preload_library + ": preload library missing (is prof installed?)");
  if (o.sim) {
    // Every simulated runtime (libamdhip64.so.5, libmusart.so.N) lives in this one directory.
    launch.sim_library_dir = prefix + "/lib/prof/sim";
    if (access((launch.sim_library_dir + "/libamdhip64.so.5").c_str(), R_OK) != 0)
      return fail(kExitProfFailed, launch.sim_library_dir + ": simulated runtime missing");
  }
  launch.device_timing = !o.no_device_timing;
  // prof's own writes to a closed pipe (`prof ./app | head -1`) fail with EPIPE and end only the
  // summary; the program starts with SIGPIPE as prof found it.
  struct sigaction sigpipe_before {};
  sigaction(SIGPIPE, nullptr, &sigpipe_before);
  launch.sigpipe_ignored = sigpipe_before.sa_handler == SIG_IGN;
  signal(SIGPIPE, SIG_IGN);
  launch.runtimes = selected_runtimes(o);
  // Capture control: recording only inside windows (by the program's calls, or by time).
  launch.capture_by_api = o.trace_start == "off";
  launch.capture_delay_ns = o.delay.empty() ? 0 : *parse_duration(o.delay);
  launch.capture_duration_ns = o.duration.empty() ? 0 : *parse_duration(o.duration);
  return 0;
}

// What the collector is told: where the run's rings and outputs are, and its capture windows.
collector::CollectorOptions collector_options(const Options& o, const RunDirectory& run_dir,
                                              const LaunchOptions& launch) {
  collector::CollectorOptions collecting{run_dir.path(), run_dir.fallback_path(), o.output_dir,
                                         PROF_VERSION};
  collecting.run_id = make_run_id();
  collecting.replace_existing = o.force;
  if (launch.capture_by_api) collecting.capture_control = "--trace-start off";
  if (!o.delay.empty())
    collecting.capture_control +=
        (collecting.capture_control.empty() ? "" : " ") + std::string("--delay ") + o.delay;
  if (!o.duration.empty())
    collecting.capture_control +=
        (collecting.capture_control.empty() ? "" : " ") + std::string("--duration ") + o.duration;
  return collecting;
}

// Runs the program with the collector recording, waits for the run's processes, and writes the
// outputs: the program's exit status, or prof's own code when the profile is not whole.
int launch_and_report(const Options& o, const std::string& program, const LaunchOptions& launch,
                      collector::Collector& collector,
                      const collector::CollectorOptions& collecting) {
  std::string message;
  // Runs into this output directory left by a prof that was killed: said once, they are not this
  // run's business. (Runs elsewhere are not mentioned: the line goes to the program's stderr,
  // and every run on the machine would carry it.)
  if (const size_t orphans = count_orphaned_runs_into(o.output_dir))
    std::fprintf(stderr,
                 "prof: %zu earlier run%s into %s ended when %s prof was killed; `prof --recover` "
                 "finishes %s\n",
                 orphans, orphans == 1 ? "" : "s", terminal_escaped(o.output_dir).c_str(),
                 orphans == 1 ? "its" : "their", orphans == 1 ? "it" : "them");
  collector.start();
  // Descendants that outlive their parents (daemons, background jobs) become prof's children, so
  // prof can wait for them below.
  become_subreaper();
  LaunchResult result = launch_and_wait(launch, program, message);
  // The program is done: a terminal that closes now ends the summary, not the databases and
  // reports.
  signal(SIGHUP, SIG_IGN);
  guard_the_finish();
  // Processes of the run still alive (a daemon, a background job) are still recording: wait for
  // them, up to --wait-timeout, then say which ones are cut short.
  const std::vector<int> running = wait_for_descendants(result.pid < 0 ? 0 : o.wait_timeout_s);
  for (int pid : running)
    std::fprintf(
        stderr,
        "prof: process %d (%s) still running %gs after %s exited; its recording is cut short\n",
        pid, terminal_escaped(process_name(pid)).c_str(), o.wait_timeout_s,
        terminal_escaped(o.program[0]).c_str());
  std::vector<collector::CollectedProcess> dbs = collector.finish(running);
  if (result.pid < 0) {
    collector.remove_journal();
    return fail(result.exit_status ? result.exit_status : kExitProfFailed, message);
  }
  for (const auto& error : collector.errors())
    std::fprintf(stderr, "prof: %s\n", terminal_escaped(error).c_str());
  for (const auto& note : collector.notes())
    std::fprintf(stderr, "prof: %s\n", terminal_escaped(note).c_str());

  if (const char* pause = getenv("PROF_TEST_PAUSE"); pause && std::strcmp(pause, "reports") == 0) {
    // The fault suite's moment "prof killed while it writes the reports"
    // (test/e2e/test_recover.py).
    std::fputs("prof: PROF_TEST_PAUSE=reports: pausing before the reports\n", stderr);
    sleep(60);
  }
  const int code = write_outputs(o, dbs, result.pid, collector.output_lost(), result.exit_status);
  collector.remove_journal();
  if (code != result.exit_status) return code;
  // Calls no ring took are counted and said above; a profile missing them must not look like a
  // whole one to a script either (400,007 calls once ended "nothing recorded", exit 0).
  if (const uint64_t unrecorded = collector.unrecorded_calls()) {
    std::fprintf(stderr,
                 "prof: profile incomplete: %llu calls of %s not recorded (above); exiting %d "
                 "instead of the "
                 "program's status %d\n",
                 static_cast<unsigned long long>(unrecorded),
                 terminal_escaped(o.program[0]).c_str(), kExitCannotWrite, result.exit_status);
    return kExitCannotWrite;
  }
  if (dbs.empty() && collector.errors().empty() && !collecting.capture_control.empty())
    std::fprintf(stderr,
                 "prof: %s made no call to a traced runtime (%s) inside a capture window (%s); "
                 "nothing recorded\n",
                 terminal_escaped(o.program[0]).c_str(), launch.runtimes.c_str(),
                 collecting.capture_control.c_str());
  else if (dbs.empty() && collector.errors().empty())
    std::fprintf(stderr, "prof: %s made no calls to a traced runtime (%s); nothing recorded\n",
                 terminal_escaped(o.program[0]).c_str(), launch.runtimes.c_str());
  return result.exit_status;
}

int run(const Options& options) {
  Options o = options;
  std::string program;
  LaunchOptions launch;
  if (const int code = prepare_launch(o, program, launch)) return code;

  std::optional<RunDirectory> run_dir;
  try {
    run_dir.emplace();
  } catch (const std::exception& e) {
    return fail(kExitProfFailed, e.what());
  }
  if (getenv("PROF_KEEP_RUN_DIR")) run_dir->keep();
  launch.run_dir = run_dir->path();
  launch.run_dir_fallback = run_dir->fallback_path();

  const collector::CollectorOptions collecting = collector_options(o, *run_dir, launch);
  std::optional<collector::Collector> collector;
  std::optional<ManifestLock> manifest;
  try {
    collector.emplace(collecting);
    // What `prof --recover` needs to finish this run if prof is killed: held locked while prof
    // lives.
    Manifest m = output_manifest(o);
    m["prof_pid"] = std::to_string(getpid());
    m["program"] = o.program[0];
    m["runtimes"] = launch.runtimes;
    m["run_id"] = collecting.run_id;
    m["capture_control"] = collecting.capture_control;
    m["journal_dir"] = collector->journal_dir();
    m["fallback_run_dir"] = run_dir->fallback_path();
    manifest.emplace(run_dir->path(), m);
  } catch (const std::exception& e) {
    if (collector) collector->remove_journal();
    return fail(kExitCannotWrite, e.what());
  }
  launch.on_started = [&](int pid) { manifest->set("program_pid", std::to_string(pid)); };
  return launch_and_report(o, program, launch, *collector, collecting);
}

// --help's footer: examples, the outputs' names and the exit statuses.
void add_footer(CLI::App& app) {
  app.footer(
      "Examples:\n"
      "  prof ./app 1024                       trace every runtime the program calls\n"
      "  prof --hip-trace ./app 1024           trace only the HIP runtime\n"
      "  prof --musa-trace ./app 1024          trace only the MUSA runtime\n"
      "  prof --cnrt-trace ./app               trace only Cambricon CNRT (queues, notifiers, "
      "MLUs)\n"
      "  prof --acl-trace ./app                trace only Ascend ACL (operators, models, NPUs)\n"
      "  prof --hiptx-trace ./train            also roctx/mstx marks and ranges "
      "(<base>.range_stats.csv)\n"
      "  prof --trace-start off ./app          record only between hipProfilerStart and "
      "hipProfilerStop\n"
      "  prof --delay 10s --duration 5s ./srv  record one window of a long run, by time\n"
      "  prof --sim ./app 1024                 run on prof's simulated devices (HIP, MUSA)\n"
      "  prof --sim -d out -o run1 ./app       outputs in out/, named run1.*\n"
      "  prof --db hip-prof-4242.db            regenerate the reports from a database\n"
      "  prof --db-merge runs/ -d out          merge every prof database in runs/ "
      "(result_merged.*)\n"
      "  prof --compare base.db new.db         compare two profiles; exit 1 when something "
      "regressed\n"
      "  prof --recover                        finish the runs of a prof that was killed (kill -9, "
      "OOM)\n"
      "\nOutputs (DIR = -d, default .): <runtime>-prof-<pid>.db (hip-prof-, musa-prof-; "
      "prof-<pid>.db\n"
      "when the process called several runtimes), result_<pid>.<runtime>trace.csv per runtime\n"
      "(hiptrace, musatrace), result_<pid>.kernel.csv, result_<pid>.report.html (the run on one\n"
      "page: open it first, in a browser), result_<pid>_copy.json (open in ui.perfetto.dev,\n"
      "\"Open trace file\").\n"
      "\nExit status: the program's (128+N if killed by signal N); prof's own errors: 2 usage, 3 "
      "no call in\n"
      "the --index-range, 65 bad database, 66 missing input, 73 cannot write, 125 launch failed, "
      "126 not\n"
      "executable, 127 not found.");
}

// The options, in the order --help, the man page and the completions show them: each add_*
// function continues where the one before stopped.
void add_tracing_options(CLI::App& app, Options& o) {
  app.prefix_command(true);
  app.set_version_flag("--version", PROF_VERSION);
  add_runtime_flags(app, o);
  app.add_flag("--kernel-stats-by-range", o.kernel_stats_by_range,
               "Also write <base>.kernel_by_range.csv: kernel statistics per innermost enclosing "
               "roctx push/pop range of the launching thread")
      ->group("Outputs");
  app.add_option("--trace-start", o.trace_start,
                 "on (default), or off: record nothing until the program calls hipProfilerStart or "
                 "roctxProfilerResume, and stop at hipProfilerStop or roctxProfilerPause, as often "
                 "as it toggles")
      ->type_name("on|off")
      ->group("Recording window");
  app.add_option("--delay", o.delay,
                 "Record nothing for this long from the program's start (500ms, 10s, ...)")
      ->type_name("TIME")
      ->group("Recording window");
  app.add_option("--duration", o.duration,
                 "Record for this long, then nothing (from the start or after --delay)")
      ->type_name("TIME")
      ->group("Recording window");
  app.add_flag("--sim", o.sim, "Run the program on prof's simulated devices (HIP, MUSA, CNRT, ACL)")
      ->group("Tracing");
}

void add_output_options(CLI::App& app, Options& o) {
  app.add_option("-d,--output-dir", o.output_dir,
                 "Directory for the outputs (default: current directory); %pid% %ppid% %hostname% "
                 "%rank% %env{VAR}% %q{VAR}% (empty if unset) %% give each process its own")
      ->type_name("DIR")
      ->group("Outputs");
  app.add_option("-o,--output", o.output_name,
                 "Base name of the outputs instead of result_<pid>; takes -d's patterns")
      ->type_name("NAME")
      ->group("Outputs");
  app.add_flag("--group-stream", o.group_stream,
               "Also write <base>_stream.json: copies and kernels by stream")
      ->group("Outputs");
  app.add_flag(
         "--no-pftrace", o.no_pftrace,
         "Do not write <base>.pftrace (Perfetto's protobuf trace of the whole run, in one file)")
      ->group("Outputs");
  app.add_option("--output-format", o.output_format,
                 "Outputs besides the db, a comma list: stats (API, kernel, copy, memory CSVs), "
                 "trace (a CSV row per call, kernel and copy), json (timeline), pftrace, html, "
                 "summary (summary.json), all; default all, but over a million calls no trace or "
                 "json unless named (the summary says so)")
      ->check(output_formats())
      ->type_name("LIST")
      ->group("Outputs");
}

// The options whose presence (not only their value) main() reads after parsing.
struct DatabaseOptions {
  CLI::Option* recover = nullptr;
  CLI::Option* index_range = nullptr;
};

DatabaseOptions add_database_options(CLI::App& app, Options& o) {
  app.add_option("--db", o.db, "Regenerate the reports from this database; runs nothing")
      ->type_name("FILE")
      ->group("Reports from a database");
  app.add_option("--db-merge", o.db_merge,
                 "Merge every prof database in DIR into one db and one set of reports")
      ->type_name("DIR")
      ->group("Reports from a database");
  app.add_flag("--recursive", o.recursive, "With --db-merge: also search DIR's subdirectories")
      ->group("Reports from a database");
  app.add_option("--json-max-events", o.json_max_events,
                 "Split a timeline with more than N events by time into parts <base>_copy.1.json, "
                 "... of at most N events"
                 " (default 500000, which a browser tab opens)")
      ->check(whole_number_in(1, kMaxJsonEvents, "events"))
      ->type_name("N")
      ->group("Outputs");
  app.add_flag("--force", o.force,
               "Replace the databases and reports of an earlier run with the same names")
      ->group("Outputs");
  app.add_option("--summary-output", o.summary_output,
                 "Where the summary goes: stdout (default), stderr, none, or a file")
      ->type_name("stdout|stderr|none|FILE")
      ->group("Outputs");
  app.add_flag("--strict", o.strict,
               "With --db-merge: a database that cannot be merged is an error, not skipped")
      ->group("Reports from a database");
  DatabaseOptions added;
  added.recover =
      app.add_option("--recover", o.recover_dirs,
                     "Finish the runs of a prof that was killed (every such run of this user, or "
                     "the run directories "
                     "given): databases and reports where the original command asked; runs nothing")
          ->expected(0, 1 << 20)
          ->type_name("[DIR...]")
          ->group("Reports from a database");
  added.index_range =
      app.add_option(
             "--index-range", o.index_range,
             "Only API calls A to B, inclusive, by sequence number: calls are numbered from 1, and "
             "0:B "
             "also means from the first (as hipprof counts); a range holding none is exit 3")
          ->type_name("A:B")
          ->group("Reports from a database");
  app.add_flag("--analyze", o.analyze,
               "With --db or --db-merge: what to fix, each finding with the time at stake, its "
               "evidence, call sites and fix, longest first (docs/findings.md); writes no reports")
      ->group("Reports from a database");
  app.add_option("--analyze-fail-above", o.analyze_fail_above,
                 "With --analyze: exit 1 when a finding puts more than PERCENT of the run at stake")
      ->type_name("PERCENT")
      ->group("Reports from a database");
  app.add_option("--analyze-set", o.analyze_set,
                 "A findings threshold, for --analyze and the findings of the summary and HTML "
                 "report, e.g. idle-gap-min=500us (names and defaults: docs/findings.md)")
      ->type_name("NAME=VALUE")
      ->group("Reports from a database");
  add_filter_options(app, o);
  return added;
}

void add_compare_and_wait_options(CLI::App& app, Options& o) {
  app.add_option("--compare", o.compare,
                 "Compare two profiles (dbs, <base>.summary.json files, or folders of them): BASE "
                 "NEW; exit 0 "
                 "clean, 1 regressed, 2 error")
      ->expected(2)
      ->type_name("BASE NEW")
      ->group("Compare");
  app.add_option("--threshold", o.threshold,
                 "With --compare: flag totals that grew by more than this (default 5%)")
      ->type_name("PERCENT")
      ->group("Compare");
  app.add_option(
         "--min-time", o.min_time,
         "With --compare: ignore entries whose total is under this on both sides (default 10us)")
      ->type_name("TIME")
      ->group("Compare");
  app.add_option("--format", o.format,
                 "With --compare: text (default), csv, json or markdown; with --analyze: text "
                 "(default) or json")
      ->type_name("text|csv|json|markdown")
      ->group("Compare");
  app.add_flag("--ignore-call-count", o.ignore_call_count,
               "With --compare: a change in call count alone is not a regression")
      ->group("Compare");
  app.add_flag("--no-device-timing", o.no_device_timing,
               "Do not record device begin/end of kernels and copies")
      ->group("Tracing");
  app.add_option("--wait-timeout", o.wait_timeout_s,
                 "After the program exits, wait up to SECONDS for processes it left running "
                 "(daemons, background "
                 "jobs) to finish recording (default 30; 0: do not wait)")
      ->check(seconds_up_to(kMaxWaitTimeoutS))
      ->type_name("SECONDS")
      ->group("Recording window");
}

// --analyze's checks: it reads a database, prints text or JSON, and fails above a percentage.
int check_analyze_options(const Options& o) {
  report::AnalyzeOptions ignored;
  for (const std::string& setting : o.analyze_set)
    if (std::string wrong = report::set_analyze_option(ignored, setting); !wrong.empty())
      return fail(kExitUsage, "--analyze-set " + setting + ": " + wrong);
  if (!o.analyze_fail_above.empty()) {
    if (!o.analyze) return fail(kExitUsage, "--analyze-fail-above goes with --analyze");
    if (!parse_threshold(o.analyze_fail_above))
      return fail(kExitUsage, "--analyze-fail-above " + o.analyze_fail_above +
                                  ": expected a percentage such as 5%");
  }
  if (!o.analyze) return 0;
  if (o.db.empty() && o.db_merge.empty())
    return fail(kExitUsage, "--analyze reads a database: give --db FILE or --db-merge DIR");
  if (!o.compare.empty()) return fail(kExitUsage, "--analyze does not go with --compare");
  if (o.format != "text" && o.format != "json")
    return fail(kExitUsage, "--format " + o.format + ": with --analyze, expected text or json");
  // The rules read every call and all the work: a subset would report patterns that are not there.
  for (const auto& [option, value] :
       {std::pair<const char*, const std::string*>{"--index-range", &o.index_range},
        {"--kernel-include-regex", &o.kernel_include_regex},
        {"--kernel-exclude-regex", &o.kernel_exclude_regex},
        {"--kernel-iteration-range", &o.kernel_iteration_range}})
    if (!value->empty())
      return fail(kExitUsage, std::string(option) +
                                  " does not go with --analyze, which reads the "
                                  "whole run");
  return 0;
}

// The checks of a parsed command line that CLI11 cannot make: 0, or the exit code of the failure
// (already said).
int check_options(CLI::App& app, Options& o, const CLI::Option& index_range) {
  o.program = app.remaining();
  // `--` ends prof's options (rocprofv3 requires it); what follows is the program.
  const bool dashdash = !o.program.empty() && o.program[0] == "--";
  if (dashdash) o.program.erase(o.program.begin());
  // Options go before the program: a leading '-' here is an option prof does not know.
  if (!dashdash && !o.program.empty() && o.program[0].size() > 1 && o.program[0][0] == '-')
    return fail(kExitUsage, o.program[0] + ": unknown option (see prof --help)");
  {
    std::string message;
    if (!split_output_name(o, message)) return fail(kExitUsage, message);
  }
  if (o.summary_output != "stdout" && o.summary_output != "stderr" && o.summary_output != "none") {
    if (o.summary_output.empty())
      return fail(kExitUsage, "--summary-output: expected stdout, stderr, none or a file");
    std::string why;
    if (summary_file(o, &why) == nullptr) return fail(kExitCannotWrite, why);
  }
  if (o.trace_start != "on" && o.trace_start != "off")
    return fail(kExitUsage, "--trace-start " + o.trace_start + ": expected on or off");
  for (const auto& [option, value] :
       {std::pair<const char*, const std::string*>{"--delay", &o.delay},
        {"--duration", &o.duration}}) {
    if (value->empty()) continue;
    const std::optional<int64_t> ns = parse_duration(*value);
    if (!ns || (*ns <= 0 && std::string(option) == "--duration"))
      return fail(kExitUsage, std::string(option) + " " + *value +
                                  ": expected a time with a unit, such as 500ms, 10s or 2.5s");
  }
  if (const int code = check_analyze_options(o)) return code;
  if (index_range.count() > 0 && !parse_range(o.index_range))
    return fail(kExitUsage, "--index-range " + o.index_range +
                                ": expected A:B with 0 <= A <= B and B >= 1 (calls "
                                "are numbered from 1; 0:B means from the first)");
  return 0;
}

// What the command line asks for: recover, compare, merge, regenerate or run.
int dispatch(Options& o, const CLI::Option& recover_option) {
  if (recover_option.count() > 0) {
    if (!o.program.empty() || !o.db.empty() || !o.db_merge.empty() || !o.compare.empty())
      return fail(
          kExitUsage,
          "--recover finishes runs of a killed prof and runs nothing; drop the program, --db, "
          "--db-merge and --compare");
    return recover(o);
  }
  if (!o.compare.empty()) {
    if (!o.program.empty() || !o.db.empty() || !o.db_merge.empty())
      return fail(kExitUsage,
                  "--compare compares two profiles and runs nothing; drop the program, --db and "
                  "--db-merge");
    return compare(o);
  }
  if (!o.db_merge.empty()) {
    if (!o.program.empty() || !o.db.empty())
      return fail(kExitUsage,
                  "--db-merge merges databases and runs nothing; drop the program and --db");
    return merge(o);
  }
  if (o.recursive) return fail(kExitUsage, "--recursive goes with --db-merge DIR");
  if (!o.db.empty()) {
    if (!o.program.empty())
      return fail(kExitUsage, "--db regenerates reports and runs nothing; drop the program");
    return o.analyze ? analyze(o) : regenerate(o);
  }
  if (o.program.empty()) return fail(kExitUsage, "no program given (see prof --help)");
  return run(o);
}

}  // namespace
}  // namespace prof::cli

int main(int argc, char** argv) {
  using namespace prof::cli;
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug
  Options o;
  CLI::App app{"prof: a launcher-profiler for accelerator runtimes (HIP, MUSA, CNRT, ACL)"};
  add_footer(app);
  add_tracing_options(app, o);
  add_output_options(app, o);
  const DatabaseOptions db = add_database_options(app, o);
  add_compare_and_wait_options(app, o);
  add_help(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version, --help-man, --completion
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, e.what() + std::string(" (see prof --help)"));
  }
  if (const int code = check_options(app, o, *db.index_range)) return code;
  return dispatch(o, *db.recover);
}
