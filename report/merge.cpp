#include "report/merge.hpp"

#include <climits>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "common/regular_file.hpp"
#include "report/merged_db.hpp"
#include "report/report_db.hpp"
#include "report/report_files.hpp"

namespace prof::report {

namespace {

constexpr char kSqliteMagic[] = "SQLite format 3";  // with its NUL: the first 16 bytes of a db

bool has_sqlite_header(const std::string& path) {
  int fd =
      open_regular(path.c_str(), O_RDONLY);  // a FIFO planted among the dbs must not hang the scan
  if (fd < 0) return false;
  char header[16] = {};
  ssize_t n = ::read(fd, header, sizeof header);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof header) &&
         std::memcmp(header, kSqliteMagic, sizeof header) == 0;
}

// A prof db is a SQLite file with meta.schema_version; merged dbs (meta.merged_processes) are
// prof's own merge outputs and are not merged again.
bool is_single_prof_db(const std::string& path) {
  if (!has_sqlite_header(path)) return false;
  try {
    Database db(path, Database::Mode::kReadOnly);
    if (!db.table_exists("meta")) return false;
    Statement st = db.prepare(
        "SELECT COUNT(*) FILTER (WHERE key = 'schema_version'),"
        " COUNT(*) FILTER (WHERE key = 'merged_processes') FROM meta");
    return st.step() && st.column_int(0) > 0 && st.column_int(1) == 0;
  } catch (const DbError& e) {
    throw as_report_error(e);
  }
}

void scan(const std::string& dir, bool recursive, bool top, std::vector<std::string>& found,
          std::vector<std::string>* skipped) {
  std::unique_ptr<DIR, int (*)(DIR*)> handle(::opendir(dir.c_str()), ::closedir);
  if (!handle) {
    int error = errno;
    if (top && error == ENOENT)
      throw ReportMissingInput("--db-merge " + dir + ": no such directory");
    throw ReportError("--db-merge " + dir + ": cannot read the directory: " + std::strerror(error));
  }
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(handle.get())) {
    std::string name = entry->d_name;
    if (name != "." && name != ".." && name.find(".tmp-") == std::string::npos)
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string path = join_path(dir, name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (recursive) scan(path, recursive, false, found, skipped);
      continue;
    }
    // A symlink to a db is followed (its target is opened: SQLite refuses paths through links);
    // one to a directory is not, so recursion cannot loop.
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
          ::realpath(path.c_str(), target) == nullptr)
        continue;
      path = target;
    }
    if (!S_ISREG(st.st_mode)) continue;
    try {
      if (is_single_prof_db(path)) found.push_back(path);
    } catch (const ReportError& e) {
      if (!skipped) throw;
      skipped->push_back(e.what());
    }
  }
}

// The merged db is built under a temp name and renamed into place with the reports.
class TempDb {
 public:
  TempDb(std::string final_path) : final_path_(std::move(final_path)) {
    temp_path_ = final_path_ + ".tmp-" + std::to_string(::getpid());
    check_replaceable();
    struct stat st;
    if (::lstat(temp_path_.c_str(), &st) == 0) ::unlink(temp_path_.c_str());
    int fd = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw ReportOutputError(final_path_ + ": cannot create: " + std::strerror(errno));
    ::close(fd);
  }
  ~TempDb() {
    if (!committed_) ::unlink(temp_path_.c_str());
  }
  const std::string& temp_path() const { return temp_path_; }
  std::string commit() {
    if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0)
      throw ReportOutputError(
          final_path_ + ": cannot rename the merged database into place: " + std::strerror(errno));
    committed_ = true;
    return final_path_;
  }

 private:
  // Replaced only when it is an earlier merged db of prof's; never through a symlink.
  void check_replaceable() const {
    struct stat st;
    if (::lstat(final_path_.c_str(), &st) != 0) return;
    if (S_ISLNK(st.st_mode))
      throw ReportOutputError(final_path_ + ": refusing to write through a symbolic link");
    bool ours = false;
    if (S_ISREG(st.st_mode) && has_sqlite_header(final_path_)) {
      try {
        Database db(final_path_, Database::Mode::kReadOnly);
        ours = db.table_exists("meta") && db.table_exists("processes");
      } catch (const DbError&) {
      }
    }
    if (!ours)
      throw ReportOutputError(final_path_ +
                              ": exists and is not a merged prof database; not replacing it "
                              "(move it away or use -o)");
  }

  std::string final_path_, temp_path_;
  bool committed_ = false;
};

struct Source {
  std::string path;
  SourceProcess process;
};

// Which side failed: a damaged source is bad input; anything else is the output's fault.
[[noreturn]] void rethrow_copy_error(Database& merged, const DbError& error,
                                     const std::string& source) {
  int code = sqlite3_extended_errcode(merged.handle()) & 0xFF;
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
    throw ReportError(source + ": " + sqlite3_errmsg(merged.handle()) +
                      " (the database is corrupt or truncated)");
  throw ReportOutputError(error.what());
}

// What makes two dbs the same process: a copy of a db, or a db found both by its name and through a
// symlink, has the same run, host, pid and start; merged twice, its calls were counted twice.
std::string process_identity(Database& db) {
  std::string identity;
  for (const char* key : {"run_id", "host_name", "pid", "start_ns"})
    identity += meta_value(db, key).value_or("") + '\n';
  return identity;
}

}  // namespace

std::vector<std::string> find_prof_dbs(const std::string& dir, bool recursive,
                                       std::vector<std::string>* skipped) {
  std::vector<std::string> found;
  scan(dir, recursive, true, found, skipped);
  return found;
}

namespace {

// The databases in --db-merge's directory, each process once, in process order; a bad one (with
// --skip-bad) and a process found again are named in `skipped` and `duplicates`.
std::vector<Source> merge_sources(const MergeOptions& merge, std::vector<std::string>& skipped,
                                  std::vector<std::string>& duplicates) {
  std::vector<Source> sources;
  std::vector<std::string>* skip = merge.skip_bad ? &skipped : nullptr;
  std::map<std::string, std::string> seen;  // process identity -> the path merged for it
  for (const std::string& path : find_prof_dbs(merge.input_dir, merge.recursive, skip)) {
    try {
      std::unique_ptr<Database> db = open_report_db(path);  // the full check: version, tables
      try {
        SourceProcess process = process_from_meta(*db);
        // The first in name order is merged; the rest are named, never counted again.
        const auto [first, inserted] = seen.emplace(process_identity(*db), path);
        if (!inserted) {
          duplicates.push_back(path +
                               (path == first->second ? " (found again through a symbolic link)"
                                                      : " (a copy of " + first->second + ")") +
                               ": the same process (pid " + std::to_string(process.pid) +
                               "); merged once");
          continue;
        }
        sources.push_back({path, std::move(process)});
      } catch (const DbError& e) {
        throw as_report_error(e);
      }
    } catch (const ReportError& e) {
      if (!skip) throw;
      skipped.push_back(e.what());
    }
  }
  if (sources.empty() && !skipped.empty())
    throw ReportError("--db-merge " + merge.input_dir + ": no database could be merged (" +
                      skipped.front() + ")");
  if (sources.empty())
    throw ReportMissingInput(
        "--db-merge " + merge.input_dir + ": no prof databases in the directory" +
        (merge.recursive ? "" : " (--recursive also searches its subdirectories)"));
  std::stable_sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) {
    return process_order_less(a.process, b.process);
  });
  return sources;
}

}  // namespace

ReportResult merge_reports(const MergeOptions& merge, const ReportOptions& opt,
                           std::FILE* summary_out) {
  if (opt.base_name.empty() || opt.base_name.find('/') != std::string::npos)
    throw ReportError("report name '" + opt.base_name +
                      "' must be a non-empty file name without '/'");
  std::vector<std::string> skipped, duplicates;
  std::vector<Source> sources = merge_sources(merge, skipped, duplicates);
  std::vector<std::string>* skip = merge.skip_bad ? &skipped : nullptr;

  TempDb temp(join_path(opt.output_dir, opt.base_name + ".db"));
  try {
    Database merged(temp.temp_path(), Database::Mode::kReadWrite);
    // A half-written merged db is deleted, never used: no journal, no fsync until the end.
    merged.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384;");
    merged.exec("BEGIN");
    create_merged_schema(merged);
    merged.exec("COMMIT");
    for (size_t i = 0; i < sources.size(); ++i) {
      if (opt.progress)
        opt.progress("merging databases", static_cast<int64_t>(i),
                     static_cast<int64_t>(sources.size()));
      Source& source = sources[i];
      source.process.process_id = static_cast<int64_t>(i + 1);
      Statement attach = merged.prepare("ATTACH DATABASE ?1 AS source");
      attach.bind(1, std::string_view(source.path));
      attach.run();
      try {
        merged.exec("BEGIN");
        copy_process(merged, "source", source.process,
                     source.path.substr(source.path.rfind('/') + 1));
        merged.exec("COMMIT");
      } catch (const DbError& e) {
        if (!skip || sqlite3_get_autocommit(merged.handle()) != 0)
          rethrow_copy_error(merged, e, source.path);
        // Corrupt part-way: this source's rows are rolled back, the merge goes on without it.
        skipped.push_back(source.path + ": " + sqlite3_errmsg(merged.handle()) +
                          " (the database is corrupt or "
                          "truncated)");
        merged.exec("ROLLBACK");
        source.process.process_id = -1;
      }
      merged.exec("DETACH DATABASE source");
    }
    if (opt.progress)
      opt.progress("merging databases", static_cast<int64_t>(sources.size()),
                   static_cast<int64_t>(sources.size()));
    int64_t merged_count = 0;
    for (const Source& source : sources) merged_count += source.process.process_id > 0;
    if (merged_count == 0)
      throw ReportError("--db-merge " + merge.input_dir + ": no database could be merged");
    finish_merged_db(merged, merged_count, merge.prof_version);
    merged.exec("PRAGMA synchronous = NORMAL");
    ReportResult result =
        write_reports_from(merged, opt, summary_out, [&temp] { return temp.commit(); });
    for (const std::string& why : duplicates) result.warnings.push_back("skipped " + why);
    for (const std::string& why : skipped) result.warnings.push_back("skipped " + why);
    return result;
  } catch (const DbError& e) {
    throw ReportOutputError(e.what());
  }
}

}  // namespace prof::report
