// prof --help-man: prof.1 in roff, from the same app, environment tables and footer as --help.
// CMake runs it after building prof (cli/CMakeLists.txt): the man page cannot drift from --help.
#include <algorithm>
#include <cctype>
#include <string>

#include "cli/help_format.hpp"
#include "cli/options.hpp"

namespace prof::cli {
namespace {

// Text safe in a roff line: backslashes and hyphens escaped (a plain '-' may become a hyphen
// that does not copy and paste as a minus), and no control character at the line's start.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string bold(const std::string& text) { return "\\fB" + roff(text) + "\\fR"; }
std::string italic(const std::string& text) { return "\\fI" + roff(text) + "\\fR"; }

std::string option_heading(const CLI::Option& option) {
  std::string names;
  for (const std::string& name : option.get_snames())
    names += (names.empty() ? "" : ", ") + bold("-" + name);
  for (const std::string& name : option.get_lnames())
    names += (names.empty() ? "" : ", ") + bold("--" + name);
  const std::string value = placeholder(option);
  return value.empty() ? names : names + " " + italic(value);
}

// The man sections the footer's parts go to, in man-pages(7)'s order.
std::string section_of(const std::string& title) {
  if (title.rfind("Exit status", 0) == 0) return "EXIT STATUS";
  if (title.rfind("Outputs", 0) == 0) return "FILES";
  if (title.rfind("Examples", 0) == 0) return "EXAMPLES";
  std::string upper = title;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return upper;
}

int section_rank(const std::string& section) {
  static const char* order[] = {"EXIT STATUS", "FILES", "EXAMPLES"};
  return static_cast<int>(std::find(std::begin(order), std::end(order), section) -
                          std::begin(order));
}

std::string footer_section(const FooterPart& part) {
  const std::string section = section_of(part.title);
  std::string out = ".SH " + section + "\n";
  if (part.items.empty()) {
    // "Outputs (DIR = -d, default .)" says what DIR is: kept; "Exit status" is the heading itself.
    std::string text = section != "FILES" ? part.text : part.title + ": " + part.text;
    if (!text.empty())
      text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return out + roff(text) + "\n";
  }
  for (const auto& [command, what] : part.items)
    out += ".TP\n" + bold(command) + "\n" + roff(what) + "\n";
  return out;
}

// What prof is, before the options: the two kinds of command.
constexpr const char* kDescription[] = {
    "prof runs PROGRAM with the calls it makes to accelerator runtimes recorded: API calls, "
    "kernels, copies and their device times go to a SQLite database, and reports (CSV "
    "statistics, a timeline for Perfetto, an HTML page, a summary) are written from it. "
    "PROGRAM's exit status is prof's.",
    "With --db, --db-merge, --compare or --recover prof runs nothing: it writes the reports "
    "again from a database, merges databases, compares two profiles, or finishes the runs of a "
    "prof that was killed."};

std::string head(const CLI::App& app) {
  std::string description = app.get_description();
  if (description.rfind("prof: ", 0) == 0) description.erase(0, 6);
  std::string out = ".\\\" Written by prof --help-man from prof's options: edit cli/main.cpp.\n";
  out += ".TH PROF 1 \"\" \"prof " PROF_VERSION "\" \"User Commands\"\n";
  // No hyphenation and a ragged right: file names such as result_<pid>.kernel.csv stay whole.
  out += ".nh\n.ad l\n";
  out += ".SH NAME\nprof \\- " + roff(description) + "\n";
  out += ".SH SYNOPSIS\n.nf\n";
  for (const std::string& form : synopsis()) out += bold("prof") + " " + roff(form) + "\n";
  out += ".fi\n.SH DESCRIPTION\n";
  for (const char* paragraph : kDescription)
    out += (paragraph == kDescription[0] ? "" : ".PP\n") + roff(paragraph) + "\n";
  return out;
}

std::string options(const CLI::App& app) {
  std::string out = ".SH OPTIONS\n";
  for (const std::string& group : help_groups(app)) {
    out += ".SS " + roff(group) + "\n";
    for (const CLI::Option* option : options_in(app, group))
      out += ".TP\n" + option_heading(*option) + "\n" + roff(option->get_description()) + "\n";
  }
  return out;
}

std::string environment() {
  std::string out = ".SH ENVIRONMENT\n";
  for (const EnvHelp& v : user_environment())
    out += ".TP\n" + bold(v.name) + "=" + italic(v.value) + "\n" + roff(v.text) + "\n";
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app) {
  std::vector<FooterPart> parts = footer_parts(app.get_footer());
  std::stable_sort(parts.begin(), parts.end(), [](const FooterPart& a, const FooterPart& b) {
    return section_rank(section_of(a.title)) < section_rank(section_of(b.title));
  });
  // man-pages(7): EXIT STATUS comes before ENVIRONMENT, FILES and EXAMPLES after it.
  std::string out = head(app) + options(app);
  for (const FooterPart& part : parts)
    if (section_of(part.title) == "EXIT STATUS") out += footer_section(part);
  out += environment();
  for (const FooterPart& part : parts)
    if (section_of(part.title) != "EXIT STATUS") out += footer_section(part);
  return out + ".SH SEE ALSO\n" +
         roff("README.md and docs/ in prof's source: formats.md (every output), guarantees.md.") +
         "\n";
}

}  // namespace prof::cli
