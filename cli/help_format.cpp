// prof --help: the option groups, the environment and the footer, wrapped to the terminal.
#include "cli/help_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "common/env_value.hpp"

namespace prof::cli {
namespace {

// Narrower than this, the two columns of an option line no longer hold a phrase.
constexpr size_t kMinHelpWidth = 40;

// "ab  cd" splits at the first run of two or more blanks: the command column of an example.
std::pair<std::string, std::string> two_columns(const std::string& line) {
  const size_t gap = line.find("  ");
  if (gap == std::string::npos) return {line, ""};
  const size_t what = line.find_first_not_of(' ', gap);
  return {line.substr(0, gap), what == std::string::npos ? "" : line.substr(what)};
}

// `left` in a column `column` wide and `text` beside it, wrapped; `left` too wide puts `text`
// on the next line.
std::string entry(const std::string& left, const std::string& text, size_t column, size_t width) {
  std::string out = left;
  if (text.empty()) return out + "\n";
  if (left.size() + 2 > column) {
    out += "\n";
    out.append(column, ' ');
  } else {
    out.append(column - left.size(), ' ');
  }
  return out + wrap(text, width, column) + "\n";
}

// The description column's start: options' placeholders fit in it at 100 columns; narrower
// terminals keep more room for the text.
size_t option_column(size_t width) {
  return width >= 90 ? 30 : std::max<size_t>(20, width * 3 / 10);
}

std::string option_label(const CLI::Option& option) {
  const std::string value = placeholder(option);
  return "  " + option.get_name(false, true) + (value.empty() ? "" : " " + value);
}

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    const size_t width = help_width();
    std::string out = wrap(app->get_description(), width, 0) + "\n\n";
    const std::string usage = "Usage: ";
    for (size_t i = 0; i < synopsis().size(); ++i)
      out += (i == 0 ? usage : std::string(usage.size(), ' ')) +
             wrap("prof " + synopsis()[i], width, usage.size() + 5) + "\n";
    const size_t column = option_column(width);
    for (const std::string& group : help_groups(*app)) {
      out += "\n" + group + ":\n";
      for (const CLI::Option* option : options_in(*app, group))
        out += entry(option_label(*option), option->get_description(), column, width);
    }
    out += "\nEnvironment:\n";
    for (const EnvHelp& v : user_environment())
      out += entry("  " + v.name + "=" + v.value, v.text, column, width);
    for (const FooterPart& part : footer_parts(app->get_footer()))
      out += "\n" + footer_text(part, width);
    return out;
  }

 private:
  static std::string footer_text(const FooterPart& part, size_t width) {
    if (part.items.empty()) return wrap(part.title + ": " + part.text, width, 0) + "\n";
    size_t column = 0;
    for (const auto& [command, what] : part.items) column = std::max(column, command.size() + 4);
    column = std::min(column, width / 2);
    std::string out = part.title + ":\n";
    for (const auto& [command, what] : part.items)
      out += entry("  " + command, what, column, width);
    return out;
  }
};

}  // namespace

size_t help_width() {
  size_t width = kMaxHelpWidth;
  winsize terminal{};
  if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (*end == '\0' && n > 0) width = static_cast<size_t>(n);
  } else if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &terminal) == 0 && terminal.ws_col > 0) {
    width = terminal.ws_col;
  }
  return std::clamp(width, kMinHelpWidth, kMaxHelpWidth);
}

std::string wrap(const std::string& text, size_t width, size_t indent) {
  std::istringstream words(text);
  std::string out, word;
  size_t used = indent;  // the caller has put the first line's indent (or its own label) there
  bool first = true;
  while (words >> word) {
    if (!first && used + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      used = indent;
      first = true;
    }
    out += (first ? "" : " ") + word;
    used += (first ? 0 : 1) + word.size();
    first = false;
  }
  return out;
}

const std::vector<std::string>& synopsis() {
  static const std::vector<std::string> forms = {
      "[OPTIONS] [--] PROGRAM [ARGS...]", "--db FILE [OPTIONS]", "--db-merge DIR [OPTIONS]",
      "--compare BASE NEW [OPTIONS]", "--recover [DIR...]"};
  return forms;
}

std::vector<EnvHelp> user_environment() {
  std::vector<EnvHelp> out;
  for (const EnvNumber& v : kEnvNumbers) {
    if (!v.help) continue;
    const bool switch_01 = v.min == 0 && v.max == 1;
    const std::string range =
        switch_01 ? "" : std::to_string(v.min) + " to " + std::to_string(v.max) + ", ";
    out.push_back({v.name, switch_01 ? "0|1" : "N",
                   v.help + (" (" + range + "default " + std::to_string(v.fallback) + ")")});
  }
  for (const EnvWord& v : kEnvWords) {
    if (!v.help) continue;
    std::string words;
    for (const char* const* w = v.allowed; *w; ++w)
      words += (words.empty() ? "" : "|") + std::string(*w);
    out.push_back({v.name, words, v.help});
  }
  for (const EnvText& v : kEnvTexts) out.push_back({v.name, v.value, v.help});
  return out;
}

std::string environment_markdown() {
  std::string out = "| Variable | Effect |\n|---|---|\n";
  // A '|' inside a cell ends it, also inside backquotes, unless escaped.
  const auto cell = [](const std::string& text) {
    std::string escaped;
    for (char c : text) escaped += c == '|' ? "\\|" : std::string(1, c);
    return escaped;
  };
  for (const EnvHelp& v : user_environment())
    out += "| `" + cell(v.name + "=" + v.value) + "` | " + cell(v.text) + " |\n";
  return out;
}

std::vector<FooterPart> footer_parts(const std::string& footer) {
  std::vector<FooterPart> parts;
  std::istringstream lines(footer);
  std::string line;
  bool open_paragraph = false;  // the last part is a paragraph that a plain line continues
  while (std::getline(lines, line)) {
    if (line.empty()) {
      open_paragraph = false;
    } else if (line.rfind("  ", 0) == 0 && !parts.empty() && !open_paragraph) {
      parts.back().items.push_back(two_columns(line.substr(2)));
    } else if (line.back() == ':' && line.find(": ") == std::string::npos) {
      parts.push_back({line.substr(0, line.size() - 1), "", {}});
      open_paragraph = false;
    } else if (open_paragraph) {
      parts.back().text += " " + line;
    } else {
      // "Title (aside): text": the title is what comes before the first ": ".
      const size_t colon = line.find(": ");
      parts.push_back(
          {line.substr(0, colon), colon == std::string::npos ? "" : line.substr(colon + 2), {}});
      open_paragraph = true;
    }
  }
  return parts;
}

std::string placeholder(const CLI::Option& option) {
  if (option.get_type_size() == 0) return "";
  return option.get_option_text().empty() ? option.get_type_name() : option.get_option_text();
}

std::vector<std::string> help_groups(const CLI::App& app) {
  std::vector<std::string> groups;
  for (const CLI::Option* option : app.get_options())
    if (!option->get_group().empty() &&
        std::find(groups.begin(), groups.end(), option->get_group()) == groups.end())
      groups.push_back(option->get_group());
  // --help and --version come first in the app; a reader looks for what to trace first.
  const auto general = std::find(groups.begin(), groups.end(), "General");
  if (general != groups.end()) std::rotate(general, general + 1, groups.end());
  return groups;
}

std::vector<const CLI::Option*> options_in(const CLI::App& app, const std::string& group) {
  return app.get_options(
      [&](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
}

void add_help(CLI::App& app) {
  app.formatter(std::make_shared<HelpFormatter>());
  app.get_help_ptr()->group("General");
  if (CLI::Option* version = app.get_option_no_throw("--version")) version->group("General");
  // Hidden (no group): they print the documents CMake installs, from this very app.
  const auto print = [](const std::string& text) {
    std::cout << text << std::flush;
    throw CLI::Success();
  };
  app.add_flag_callback(
         "--help-man", [&app, print] { print(man_page(app)); }, "Print the man page (roff)")
      ->group("");
  // Checked here, not by a validator: CLI11 names a function option's failures with an empty name.
  app.add_option_function<std::string>(
         "--completion",
         [&app, print](const std::string& shell) {
           const std::string script = completion_script(app, shell);
           if (script.empty())
             throw CLI::ValidationError("--completion " + shell, "expected bash or zsh");
           print(script);
         },
         "Print the completion script for bash or zsh")
      ->type_name("bash|zsh")
      ->group("");
  app.add_flag_callback(
         "--help-env-markdown", [print] { print(environment_markdown()); },
         "Print README.md's table of environment variables")
      ->group("");
}

}  // namespace prof::cli
