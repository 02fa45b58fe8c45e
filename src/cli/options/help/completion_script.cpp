// The bash and zsh completion scripts, written from the help rows. bash: one case arm
// for the options whose value is a path (files offered), one for -h (its categories),
// one for the other options that take a value (nothing offered: a method, a number);
// else a word starting with '-' completes to an option name. zsh: one _arguments spec
// per option, repeatable, as sluice's options may be given several times.
// Ownership: pure functions; any thread.

#include "cli/options/help/completion_script.hpp"

#include "cli/options/help/help_rows.hpp"

namespace sluice::cli {

namespace {

// "-o|--output", or "--split" for an option without a short name.
std::string bash_pattern(const HelpRow& row) {
  std::string names = row.short_name != '\0' ? std::string{'-', row.short_name, '|'} : "";
  // '#' starts a comment in a case pattern unless quoted.
  if (row.short_name == '#') names = "'-#'|";
  return names + "--" + std::string(row.long_name);
}

std::string category_words() {
  std::string words = "all category important";
  for (const HelpCategory& category : help_categories()) words += ' ' + std::string(category.name);
  return words;
}

enum class ValueKind { none, path, category, other };

ValueKind value_kind(const HelpRow& row) {
  if (row.long_name == "help") return ValueKind::category;
  if (row.argument.empty()) return ValueKind::none;
  return takes_path(row) ? ValueKind::path : ValueKind::other;
}

// "  -o|--output|-D|--dump-header)" for every row of `kind`, one pattern a line.
std::string bash_case_arm(ValueKind kind) {
  std::string patterns;
  for (const HelpRow& row : help_rows()) {
    if (value_kind(row) != kind) continue;
    patterns += patterns.empty() ? "    " : "|\\\n    ";
    patterns += bash_pattern(row);
  }
  return patterns + ")\n";
}

std::string bash_script() {
  std::string words;
  for (const HelpRow& row : help_rows()) {
    if (row.short_name != '\0') words += std::string{'-', row.short_name, ' '};
    words += "--" + std::string(row.long_name) + ' ';
  }
  words.pop_back();
  return "# bash completion for sluice: written by `sluice --completion bash` from its\n"
         "# option table. Installed as share/bash-completion/completions/sluice.\n"
         "_sluice() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
         "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
         "  COMPREPLY=()\n"
         "  case $prev in\n" +
         bash_case_arm(ValueKind::path) +
         "      compopt -o filenames 2>/dev/null\n"
         "      mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
         "      return ;;\n" +
         bash_case_arm(ValueKind::category) + "      mapfile -t COMPREPLY < <(compgen -W \"" +
         category_words() +
         "\" -- \"$cur\")\n"
         "      return ;;\n" +
         bash_case_arm(ValueKind::other) +
         "      return ;;\n"
         "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"" +
         words +
         "\" -- \"$cur\")\n"
         "  fi\n"
         "}\n"
         "complete -F _sluice sluice\n";
}

// Text inside a single-quoted zsh word, and inside an _arguments [description]
// (`brackets`: '[' and ']' need a backslash) or message, where ':' does.
std::string zsh_escaped(std::string_view text, bool brackets = false) {
  std::string out;
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
      continue;
    }
    if (c == ':' || c == '\\' || (brackets && (c == '[' || c == ']'))) out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_action(const HelpRow& row) {
  std::string message(row.argument);
  if (message.starts_with('<') && message.ends_with('>'))
    message = message.substr(1, message.size() - 2);
  switch (value_kind(row)) {
    case ValueKind::none: return "";
    case ValueKind::path: return ":" + zsh_escaped(message) + ":_files";
    case ValueKind::category: return ":" + zsh_escaped(message) + ":(" + category_words() + ")";
    case ValueKind::other: break;
  }
  return ":" + zsh_escaped(message) + ": ";
}

// '*'{-o+,--output=}'[Write to file instead of stdout]:file:_files': -o takes its value
// in the same word or the next, --output after '=' or in the next word.
std::string zsh_spec(const HelpRow& row) {
  const bool value = value_kind(row) != ValueKind::none;
  const std::string long_form = "--" + std::string(row.long_name) + (value ? "=" : "");
  std::string names;
  if (row.short_name != '\0') {
    const std::string short_form = std::string{'-', row.short_name} + (value ? "+" : "");
    names = "'*'{'" + short_form + "','" + long_form + "'}'";
  } else {
    names = "'*" + long_form;
  }
  return "  " + names + "[" + zsh_escaped(row.description, true) + "]" + zsh_action(row) + "' \\\n";
}

std::string zsh_script() {
  std::string specs;
  for (const HelpRow& row : help_rows()) specs += zsh_spec(row);
  return "#compdef sluice\n"
         "# zsh completion for sluice: written by `sluice --completion zsh` from its option\n"
         "# table. Installed as share/zsh/vendor-completions/_sluice.\n"
         "_arguments -s -S \\\n" +
         specs + "  '*:URL:_urls'\n";
}

}  // namespace

Result<std::string> completion_script(std::string_view shell) {
  if (shell == "bash") return bash_script();
  if (shell == "zsh") return zsh_script();
  return Error(ErrorCategory::usage,
               "--completion: no completions for '" + std::string(shell) + "' (bash or zsh)");
}

}  // namespace sluice::cli
