// prof's help, man page and shell completions, all written from one description: the CLI11 app
// main.cpp defines (options, placeholders, groups, footer) and the environment tables of
// common/env_value.hpp. Nothing here is typed twice.
#pragma once
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace prof::cli {

// Help is never wider than this, whatever the terminal: lines past 100 columns are hard to read.
inline constexpr size_t kMaxHelpWidth = 100;

// The width help is wrapped to: COLUMNS, else the terminal's (TIOCGWINSZ), else 100; at most 100.
size_t help_width();
// `text` in lines of at most `width` columns (a longer word keeps its own line), each line after
// the first starting with `indent` spaces; words are split at blanks and at existing newlines.
std::string wrap(const std::string& text, size_t width, size_t indent);

// The ways prof is invoked, as the help's usage lines and the man page's SYNOPSIS show them.
const std::vector<std::string>& synopsis();

// One variable a user may set, with its placeholder and one line (common/env_value.hpp).
struct EnvHelp {
  std::string name;
  std::string value;
  std::string text;
};
std::vector<EnvHelp> user_environment();
// README.md's table of them (scripts/update-readme-env.sh puts it between its markers).
std::string environment_markdown();

// The footer cut into its parts: titled two-column lists ("Examples:", lines "  command  what")
// and paragraphs ("Outputs ...: text", "Exit status: text"), in order.
struct FooterPart {
  std::string title;
  std::string text;                                        // a paragraph, when `items` is empty
  std::vector<std::pair<std::string, std::string>> items;  // command, what it does
};
std::vector<FooterPart> footer_parts(const std::string& footer);

// An option's placeholder as help shows it ("DIR", "on|off", "BASE NEW"); "" for a flag.
std::string placeholder(const CLI::Option& option);
// The groups of `app`'s visible options, in the order the help shows them.
std::vector<std::string> help_groups(const CLI::App& app);
std::vector<const CLI::Option*> options_in(const CLI::App& app, const std::string& group);

// The man page (roff) and a completion script for "bash" or "zsh" ("" for another shell).
std::string man_page(const CLI::App& app);
std::string completion_script(const CLI::App& app, const std::string& shell);

// Gives `app` prof's help formatter and the hidden options that print the other documents:
// --help-man, --completion bash|zsh, --help-env-markdown. Call once every option is defined.
void add_help(CLI::App& app);

}  // namespace prof::cli
