#pragma once
// Config files (-K FILE and the default one), read as curl reads its .curlrc: one
// option per line, turned into the arguments it stands for. Pure: text in, arguments
// out; the command-line parser reads the file and splices the arguments in where -K
// stood. Any thread.
//
// A line is, after leading blanks:
//   # comment                 (and blank lines) ignored
//   name = value              a long option without its dashes; '=', ':' or blanks
//   name: value               separate it from the value ("url = X" is --url X)
//   name value
//   -o value / --output value an option with its dashes; only blanks separate
//   name                      an option that takes no value
// A value with blanks, or starting with '=', ':' or '#', is written in double quotes,
// where \\ \" \t \n \r \v are escapes and a backslash before any other character
// is dropped. A '#' after the value starts a comment.

#include <string>
#include <string_view>
#include <vector>

#include "sluice/error.hpp"

namespace sluice::cli {

/// One option line of a config file as command-line arguments: the option ("--output",
/// "-sS", "--progress=line") and, when the line gives one, its value.
struct ConfigLine {
  unsigned number = 0;  ///< 1-based, for errors: "FILE:NUMBER: ..."
  std::vector<std::string> arguments;
};

/// The option lines of `text`. Errors (category usage) start with "NAME:LINE: ",
/// `name` being how the file is shown ("<stdin>" for -K -): a line that names no
/// option, an unclosed quote, text after a quoted value, or an unquoted value with
/// blanks in it (curl only warns, then drops what follows the blank; an error says so
/// before anything is sent).
Result<std::vector<ConfigLine>> parse_config_text(std::string_view text, std::string_view name);

/// Where the default config file is: $XDG_CONFIG_HOME/sluice/config when that
/// variable is an absolute path, else $HOME/.config/sluice/config; empty when
/// neither is set. Arguments are the variables' values (nullptr: unset).
std::string default_config_path(const char* xdg_config_home, const char* home);

}  // namespace sluice::cli
