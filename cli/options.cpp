#include "cli/options.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <climits>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "cli/filter_options.hpp"
#include "cli/merge.hpp"
#include "cli/outputs.hpp"
#include "collector/process_info.hpp"
#include "db/sqlite_db.hpp"
#include "report/utf8.hpp"

namespace prof::cli {

using report::terminal_escaped;

int fail(int code, const std::string& message) {
  // One line, whatever the paths and names quoted in it hold.
  std::fprintf(stderr, "prof: %s\n", terminal_escaped(message).c_str());
  return code;
}

std::optional<std::pair<int64_t, int64_t>> parse_range(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,18}):([0-9]{1,18})$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  int64_t a = std::stoll(m[1]), b = std::stoll(m[2]);
  // Sequence numbers start at 1; hipprof's users also count from 0, and 0:B can only mean "from
  // the first call". 0:0 holds no call at all: refused, not read as 1:1.
  if (b < a || b < 1) return std::nullopt;
  return std::make_pair(std::max<int64_t>(a, 1), b);
}

bool prepare_output_dir(std::string& dir, std::string& message, const char* option) {
  std::string partial;
  size_t at = 0;
  while (at != std::string::npos) {
    at = dir.find('/', at + 1);
    partial = dir.substr(0, at);
    if (partial.empty()) continue;
    struct stat st;
    if (stat(partial.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        message = std::string(option) + " " + dir + ": " + partial + " is not a directory";
        return false;
      }
      continue;
    }
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      message = std::string(option) + " " + dir + ": cannot create " + partial + " (" +
                std::strerror(errno) + ")";
      return false;
    }
  }
  char resolved[PATH_MAX];
  if (realpath(dir.c_str(), resolved) == nullptr) {
    message = std::string(option) + " " + dir + ": " + std::strerror(errno);
    return false;
  }
  dir = resolved;
  // SQLite opens no path longer than its VFS's limit, and says so only when the finished db is
  // opened at the end: the whole profile was lost. Room is kept for the longest name prof gives a
  // db in it (kDbNameRoom) and SQLite's "-journal" after it.
  const size_t limit = static_cast<size_t>(sqlite_max_path_chars());
  if (dir.size() + 1 + kDbNameRoom + std::strlen("-journal") + 1 > limit) {
    message = std::string(option) + " " + dir + ": the path is " + std::to_string(dir.size()) +
              " characters; SQLite opens databases of at most " + std::to_string(limit) +
              "-character paths, so the directory may have at most " +
              std::to_string(limit - 1 - kDbNameRoom - std::strlen("-journal") - 1);
    return false;
  }
  // access() says yes to root everywhere; only creating a file proves the directory takes one.
  std::string probe = dir + "/.prof-probe-" + std::to_string(getpid());
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    message = std::string(option) + " " + dir + ": not writable (" + std::strerror(errno) + ")";
    return false;
  }
  close(fd);
  unlink(probe.c_str());
  return true;
}

int temp_owner_pid(const std::string& name) {
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 >= name.size()) return 0;
  char* end = nullptr;
  const long pid = std::strtol(name.c_str() + at + 5, &end, 10);
  return *end == '\0' && pid > 0 && pid <= INT_MAX &&
                 std::isdigit(static_cast<unsigned char>(name[at + 5]))
             ? static_cast<int>(pid)
             : 0;
}

namespace {
// A temp name whose prof is gone: nothing will ever rename it into place.
bool stale_temp(const std::string& name) {
  const int pid = temp_owner_pid(name);
  return pid > 0 && !collector::process_alive(pid);
}
}  // namespace

StaleTemps remove_stale_temps(const std::string& dir) {
  StaleTemps removed;
  DIR* d = opendir(dir.c_str());
  if (!d) return removed;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (!stale_temp(name)) continue;
    // Only a regular file of this user's: another user's stale temporaries are theirs to remove,
    // and a link or FIFO planted under such a name is not a report prof began.
    struct stat st;
    const std::string path = dir + "/" + name;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
    if (unlink(path.c_str()) != 0) continue;
    ++removed.files;
    removed.bytes += static_cast<uint64_t>(st.st_size);
    const int pid = temp_owner_pid(name);
    if (std::find(removed.pids.begin(), removed.pids.end(), pid) == removed.pids.end())
      removed.pids.push_back(pid);
  }
  closedir(d);
  return removed;
}

void say_stale_temps_removed(const std::string& dir, const StaleTemps& removed) {
  if (removed.files == 0) return;
  std::string pids;
  for (int pid : removed.pids) pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
  std::fprintf(
      stderr, "prof: %s\n",
      terminal_escaped(
          "removed " + std::to_string(removed.files) + " unfinished report file" +
          (removed.files == 1 ? "" : "s") + " (" + std::to_string(removed.bytes >> 20) +
          " MiB) in " + dir + " of a prof killed while writing its reports (pid " + pids +
          "); its databases are complete: `prof --recover` writes the reports of a killed run, "
          "`prof --db <db>` those of one database")
          .c_str());
}

bool base_taken(const std::string& dir, const std::string& base) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool taken = false;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (stale_temp(name)) continue;  // a killed prof's unfinished report holds no name
    if (name.size() > base.size() && name.compare(0, base.size(), base) == 0 &&
        (name[base.size()] == '.' || name[base.size()] == '_') &&
        name.rfind(".db") != name.size() - 3) {
      taken = true;
      break;
    }
  }
  closedir(d);
  return taken;
}

std::FILE* summary_stream(const Options& o) {
  if (o.summary_output == "stdout") return stdout;
  if (o.summary_output == "stderr") return stderr;
  if (o.summary_output == "none") return nullptr;
  return summary_file(o);
}

std::string output_format_error(const std::string& list) {
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    bool known = false;
    for (const char* word : kOutputFormats) known = known || item == word;
    if (!known) {
      std::string words;
      for (const char* word : kOutputFormats)
        words += (words.empty() ? "" : ", ") + std::string(word);
      return "'" + item + "' is not an output; expected a comma list of " + words;
    }
    at = comma + 1;
  }
  return "";
}

report::ReportOptions report_options(const Options& o, const std::string& base) {
  report::ReportOptions r;
  r.output_dir = o.output_dir;
  r.base_name = base;
  r.group_stream = o.group_stream;
  const auto asked = [&](std::string_view word) {
    if (o.output_format.empty() || o.output_format == "all") return true;
    for (size_t at = 0; at <= o.output_format.size();) {
      const size_t comma = std::min(o.output_format.find(',', at), o.output_format.size());
      const std::string_view item = std::string_view(o.output_format).substr(at, comma - at);
      if (item == word || item == "all") return true;
      at = comma + 1;
    }
    return false;
  };
  r.pftrace = !o.no_pftrace && asked("pftrace");
  r.stats_csv = asked("stats");
  r.trace_csv = asked("trace");
  r.json = asked("json");
  r.html = asked("html");
  r.summary_json = asked("summary");
  // Not given: a big run gets no per-row files nobody asked for (a --group-stream asks for JSON).
  if (o.output_format.empty() && !o.group_stream) r.big_run_calls = report::kBigRunCalls;
  if (!o.index_range.empty()) r.index_range = parse_range(o.index_range);
  r.kernels = kernel_filter_options(o);
  r.json_max_events = o.json_max_events;
  r.kernel_stats_by_range = o.kernel_stats_by_range;
  r.analyze = analyze_options(o);
  r.progress = terminal_progress();
  return r;
}

report::AnalyzeOptions analyze_options(const Options& o) {
  report::AnalyzeOptions options;
  for (const std::string& setting : o.analyze_set)
    report::set_analyze_option(options, setting);  // checked before (check_analyze_options)
  return options;
}

std::optional<double> parse_threshold(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,6}(\.[0-9]{1,6})?)%?$)");
  if (!std::regex_match(text, pattern)) return std::nullopt;
  return std::stod(text) / 100.0;
}

std::optional<int64_t> parse_duration(const std::string& text) {
  static const std::regex pattern(R"(^([0-9]{1,9}(\.[0-9]{1,9})?)(ns|us|ms|s)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  const std::string unit = m[3].str();
  const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1;
  if (unit.empty() && std::stod(m[1].str()) != 0)
    return std::nullopt;  // a bare number needs a unit
  return static_cast<int64_t>(std::llround(std::stod(m[1].str()) * scale));
}

}  // namespace prof::cli
