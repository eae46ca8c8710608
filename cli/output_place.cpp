#include "cli/output_place.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "collector/collector.hpp"
#include "report/report_db.hpp"

namespace prof::cli {
namespace {

std::string this_host() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// The values -d and -o are checked with before anything runs: any process's would do, as only the
// environment's (%env{}%) can make a pattern fail once its syntax is right.
PatternValues sample_values() {
  PatternValues values;
  values.pid = values.ppid = 1;
  values.rank = 0;
  values.hostname = this_host();
  return values;
}

// -o's last component, which names the files: "" when there is none.
bool names_a_file(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return !base.empty() && base != "." && base != "..";
}

std::optional<int> meta_number(Database& db, const char* key) {
  const std::optional<std::string> text = report::meta_value(db, key);
  if (!text || text->empty() || text->size() > 9 ||
      text->find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::atoi(text->c_str());
}

}  // namespace

bool split_output_name(Options& o, std::string& message) {
  // --db-merge and --compare write one set of outputs from several processes: their patterns are
  // expanded now, and one naming a single process's value (%pid%) is refused. A run and --db
  // expand theirs per process, once its database says its values.
  const bool one_place = !o.db_merge.empty() || !o.compare.empty();
  PatternValues values = sample_values();
  if (one_place) values.pid = values.ppid = values.rank = std::nullopt;
  for (const auto& [option, text] :
       {std::pair<const char*, std::string*>{"-d", &o.output_dir}, {"-o", &o.output_name}}) {
    const PatternExpansion expanded = expand_path_pattern(*text, values);
    if (!expanded.ok()) {
      message = std::string(option) + " " + *text + ": " + expanded.error;
      return false;
    }
    if (text == &o.output_name && !text->empty() &&
        (!names_a_file(*text) || !names_a_file(expanded.text))) {
      message = "-o " + *text + ": expected a file name (such as run1), or a path ending in one" +
                (expanded.text != *text ? " (it gives '" + expanded.text + "')" : "");
      return false;
    }
    if (one_place) *text = expanded.text;
  }
  if (const size_t slash = o.output_name.rfind('/'); slash != std::string::npos) {
    const std::string dir = o.output_name.substr(0, slash);
    o.output_dir = dir.empty() ? "/" : dir[0] == '/' ? dir : o.output_dir + "/" + dir;
    o.output_name.erase(0, slash + 1);
  }
  if (!one_place) {
    o.output_dir = literal_prefix(o.output_dir, o.output_subdir);
    if (o.output_dir.empty()) o.output_dir = ".";
  }
  return true;
}

PatternValues process_pattern_values(const std::string& db_path, int pid) {
  PatternValues values;
  values.pid = pid;
  values.ppid = 0;
  values.rank = 0;  // outside a job, as rocprofv3's %rank%
  values.hostname = this_host();
  try {
    std::unique_ptr<Database> db = report::open_report_db(db_path);
    for (const auto& [key, value] :
         {std::pair<const char*, std::optional<int>*>{"pid", &values.pid},
          {"ppid", &values.ppid},
          {"rank", &values.rank}})
      if (const std::optional<int> number = meta_number(*db, key)) *value = number;
    if (const std::optional<std::string> host = report::meta_value(*db, "host_name");
        host && !host->empty())
      values.hostname = *host;
  } catch (const std::exception&) {
    // A db that cannot be read gets no reports either (said where they fail); its place is named
    // by what prof knows.
  }
  return values;
}

bool place_outputs(const Options& o, const PatternValues& values, OutputPlace& place,
                   std::string& message) {
  place.dir = o.output_dir;
  place.name.clear();
  if (!o.output_subdir.empty()) {
    const PatternExpansion sub = expand_path_pattern(o.output_subdir, values);
    if (!sub.ok()) {
      message = "-d " + o.output_subdir + ": " + sub.error;
      return false;
    }
    place.dir += "/" + sub.text;
  }
  if (!o.output_name.empty()) {
    const PatternExpansion name = expand_path_pattern(o.output_name, values);
    if (!name.ok() || !names_a_file(name.text)) {
      message = "-o " + o.output_name + ": " +
                (name.ok() ? "gives '" + name.text + "', not a file name" : name.error);
      return false;
    }
    place.name = name.text;
    // A value with a slash in it (%env{}%) names a directory below, as a slash in -o does.
    if (const size_t slash = place.name.rfind('/'); slash != std::string::npos) {
      const std::string dir = place.name.substr(0, slash);
      place.dir = dir.empty() ? "/" : dir[0] == '/' ? dir : place.dir + "/" + dir;
      place.name.erase(0, slash + 1);
    }
  }
  return place.dir == o.output_dir || prepare_output_dir(place.dir, message, "-d");
}

std::string move_db_into(const std::string& db_path, const std::string& dir, bool force,
                         std::string& message) {
  const size_t slash = db_path.rfind('/');
  if (slash != std::string::npos && db_path.compare(0, slash, dir) == 0 && slash == dir.size())
    return db_path;
  std::string stem = db_path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".db") == 0) stem.resize(stem.size() - 3);
  const std::string target = collector::free_name(dir + "/" + stem, ".db", force);
  if (std::rename(db_path.c_str(), target.c_str()) == 0) return target;
  message = "cannot move " + db_path + " to " + target + " (" + std::strerror(errno) +
            "); it stays where it is";
  return db_path;
}

}  // namespace prof::cli
