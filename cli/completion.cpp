// prof --completion bash|zsh: a completion script from the same app as --help. An option's values
// come from its placeholder: "on|off" lists its words, DIR and FILE complete paths, LIST is
// --output-format's comma list; the first word that is not an option is the program to run.
#include <string>
#include <vector>

#include "cli/help_format.hpp"
#include "cli/options.hpp"

namespace prof::cli {
namespace {

// What completes an option's value, read from its placeholder.
struct Values {
  std::vector<std::string> words;  // fixed words (on, off)
  bool files = false;
  bool dirs = false;
  bool comma_list = false;  // words joined by commas (--output-format stats,trace)
  size_t count = 1;         // values it takes (BASE NEW: 2)
};

bool is_upper_word(const std::string& word) {
  return !word.empty() &&
         word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ[]._:") == std::string::npos;
}

Values values_of(const CLI::Option& option) {
  const std::string value = placeholder(option);
  Values v;
  if (value == "LIST") {
    for (const char* format : kOutputFormats) v.words.push_back(format);
    v.comma_list = true;
    return v;
  }
  v.count = option.get_expected_min() > 1 ? static_cast<size_t>(option.get_expected_min()) : 1;
  std::string part;
  for (size_t at = 0; at <= value.size(); ++at) {
    if (at < value.size() && value[at] != '|' && value[at] != ' ') {
      part += value[at];
      continue;
    }
    if (part == "DIR" || part == "[DIR...]") v.dirs = true;
    if (part == "FILE" || part == "BASE" || part == "NEW") v.files = true;
    if (!part.empty() && !is_upper_word(part)) v.words.push_back(part);
    part.clear();
  }
  return v;
}

std::vector<std::string> names_of(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& name : option.get_snames()) names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) names.push_back("--" + name);
  return names;
}

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  std::vector<const CLI::Option*> options;
  for (const std::string& group : help_groups(app))
    for (const CLI::Option* option : options_in(app, group)) options.push_back(option);
  return options;
}

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : separator) + word;
  return out;
}

// The bash `compgen` calls that complete one option's value into COMPREPLY.
std::string bash_values(const Values& v) {
  if (v.comma_list)
    return "local head=\"\"; [[ $cur == *,* ]] && head=${cur%,*},\n"
           "      COMPREPLY=($(compgen -P \"$head\" -W \"" +
           joined(v.words, " ") +
           "\" -- \"${cur##*,}\"))\n"
           "      compopt -o nospace 2>/dev/null";
  std::string out = "COMPREPLY=(";
  if (!v.words.empty()) out += "$(compgen -W \"" + joined(v.words, " ") + "\" -- \"$cur\") ";
  if (v.files) out += "$(compgen -f -- \"$cur\")";
  if (v.dirs) out += "$(compgen -d -- \"$cur\")";
  return out + ")";
}

std::string bash_script(const CLI::App& app) {
  std::vector<std::string> all, one_value, two_values;
  std::string cases;
  for (const CLI::Option* option : visible_options(app)) {
    const std::vector<std::string> names = names_of(*option);
    all.insert(all.end(), names.begin(), names.end());
    if (placeholder(*option).empty()) continue;
    const Values v = values_of(*option);
    std::vector<std::string>& valued = v.count == 2 ? two_values : one_value;
    valued.insert(valued.end(), names.begin(), names.end());
    cases += "    " + joined(names, "|") + ")\n      " + bash_values(v) + "\n      return ;;\n";
  }
  // BASE NEW's second value: the word before is BASE, the one before that --compare.
  std::string second;
  if (!two_values.empty())
    second = "  case ${COMP_WORDS[COMP_CWORD-2]} in " + joined(two_values, "|") +
             ") [[ $cur != -* ]] && { COMPREPLY=($(compgen -f -- \"$cur\")); return; } ;; esac\n";
  return "# bash completion for prof: written by `prof --completion bash` from prof's options.\n"
         "_prof() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i=1 word\n"
         "  COMPREPLY=()\n"
         "  # --opt=value arrives as --opt, =, value (COMP_WORDBREAKS holds '=').\n"
         "  if [[ $cur == = ]]; then cur=\"\"\n"
         "  elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
         "  # prof's options end at --, or at the first word that is neither an option nor\n"
         "  # its value: the program, whose own arguments follow.\n"
         "  while ((i < COMP_CWORD)); do\n"
         "    word=${COMP_WORDS[i]}\n"
         "    [[ ${COMP_WORDS[i+1]} == = ]] && ((i++))\n"
         "    case $word in\n"
         "      --) ((i++)); break ;;\n" +
         (one_value.empty() ? "" : "      " + joined(one_value, "|") + ") ((i += 2)) ;;\n") +
         (two_values.empty() ? "" : "      " + joined(two_values, "|") + ") ((i += 3)) ;;\n") +
         "      -*) ((i++)) ;;\n"
         "      *) break ;;\n"
         "    esac\n"
         "  done\n"
         "  if ((i < COMP_CWORD)); then\n"
         "    if declare -F _command_offset >/dev/null; then _command_offset \"$i\"; else\n"
         "      COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
         "    return\n"
         "  fi\n"
         "  if ((i > COMP_CWORD)) || [[ $cur != -* || ${COMP_WORDS[i-1]} == -- ]]; then\n"
         "    case $prev in\n" +
         cases + "    esac\n" + second +
         "    # The program: a command on PATH or a file.\n"
         "    [[ $cur != */* ]] && COMPREPLY=($(compgen -c -- \"$cur\"))\n"
         "    COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  COMPREPLY=($(compgen -W \"" +
         joined(all, " ") +
         "\" -- \"$cur\"))\n"
         "}\n"
         "complete -o filenames -F _prof prof\n";
}

// Text inside a single-quoted _arguments spec: a quote closes the shell's quoting, and `stop`
// (']' in a description, ':' in a message) would end the field early.
std::string zsh_text(const std::string& text, char stop) {
  std::string out;
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (c == stop || c == '\\')
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

std::string zsh_action(const CLI::Option& option) {
  const Values v = values_of(option);
  std::string value;  // the message zsh shows: "[DIR...]" as "DIR..."
  for (char c : placeholder(option))
    if (c != '[' && c != ']') value += c;
  value = zsh_text(value, ':');
  if (v.comma_list) return ":" + value + ":_sequence compadd - " + joined(v.words, " ");
  if (v.count == 2) return ":BASE:_files:NEW:_files";
  if (v.dirs) return ":" + value + ":_files -/";
  if (!v.words.empty() && v.files)
    return ":" + value + ":{compadd - " + joined(v.words, " ") + "; _files}";
  if (!v.words.empty()) return ":" + value + ":(" + joined(v.words, " ") + ")";
  if (v.files) return ":" + value + ":_files";
  return ":" + value + ": ";
}

std::string zsh_script(const CLI::App& app) {
  std::string specs;
  for (const CLI::Option* option : visible_options(app)) {
    const bool valued = !placeholder(*option).empty();
    const std::string help = "[" + zsh_text(option->get_description(), ']') + "]";
    const std::vector<std::string> names = names_of(*option);
    std::string spec;
    if (names.size() > 1) spec = "'(" + joined(names, " ") + ")'{";
    for (size_t i = 0; i < names.size(); ++i)
      spec += (i ? "," : "") + names[i] + (valued ? (names[i].size() == 2 ? "+" : "=") : "");
    if (names.size() > 1) spec += "}";
    specs += "    " + spec + "'" + help + (valued ? zsh_action(*option) : "") + "' \\\n";
  }
  return "#compdef prof\n"
         "# zsh completion for prof: written by `prof --completion zsh` from prof's options.\n"
         "_arguments -s -S \\\n" +
         specs +
         "    '(-)1:program:_command_names -e' \\\n"
         "    '*::program arguments:_normal'\n";
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") return bash_script(app);
  if (shell == "zsh") return zsh_script(app);
  return "";
}

}  // namespace prof::cli
