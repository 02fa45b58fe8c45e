#include "cli/options/syntax/config_file.hpp"

namespace sluice::cli {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// An undashed long option ends at '=' or ':' too; a dashed one only at a blank, as
// on the command line ("--progress=line" stays one argument).
bool ends_option(char c, bool dashed) { return is_blank(c) || (!dashed && (c == '=' || c == ':')); }

// Reads one line, consuming it as it goes. Errors are bare messages; the caller
// prefixes the file and line.
class LineReader {
 public:
  explicit LineReader(std::string_view line) : rest_(line) {}

  // Empty `arguments` for a blank or comment line.
  Result<std::vector<std::string>> read() {
    skip_blanks();
    if (rest_.empty() || rest_.front() == '#') return std::vector<std::string>{};
    bool dashed = rest_.front() == '-';
    std::size_t end = 0;
    while (end < rest_.size() && !ends_option(rest_[end], dashed)) ++end;
    std::string option(rest_.substr(0, end));
    rest_.remove_prefix(end);
    if (option.empty()) return failure("no option name before '" + std::string(1, rest_[0]) + "'");
    if (option == "-" || option == "--") return failure("'" + option + "' is not an option");
    std::vector<std::string> arguments{dashed ? option : "--" + option};
    while (!rest_.empty() && ends_option(rest_.front(), dashed)) rest_.remove_prefix(1);
    if (rest_.empty() || rest_.front() == '#') return arguments;
    Result<std::string> value = rest_.front() == '"' ? quoted_value() : plain_value();
    if (!value) return std::move(value).error();
    arguments.push_back(std::move(*value));
    return arguments;
  }

 private:
  static Error failure(std::string message) {
    return Error(ErrorCategory::usage, std::move(message));
  }

  void skip_blanks() {
    while (!rest_.empty() && is_blank(rest_.front())) rest_.remove_prefix(1);
  }

  // What may follow a value: blanks, then nothing or a comment.
  bool only_comment_left() {
    skip_blanks();
    return rest_.empty() || rest_.front() == '#';
  }

  Result<std::string> plain_value() {
    std::size_t end = 0;
    while (end < rest_.size() && !is_blank(rest_[end])) ++end;
    std::string value(rest_.substr(0, end));
    rest_.remove_prefix(end);
    if (!only_comment_left()) {
      return failure("the value '" + value + "' is followed by '" + std::string(rest_) +
                     "': put a value with blanks in double quotes");
    }
    return value;
  }

  Result<std::string> quoted_value() {
    rest_.remove_prefix(1);
    std::string value;
    while (!rest_.empty() && rest_.front() != '"') {
      char c = rest_.front();
      rest_.remove_prefix(1);
      if (c == '\\' && !rest_.empty()) {
        c = unescaped(rest_.front());
        rest_.remove_prefix(1);
      }
      value += c;
    }
    if (rest_.empty()) return failure("the quoted value has no closing '\"'");
    rest_.remove_prefix(1);
    if (!only_comment_left()) return failure("text after the closing '\"' of the value");
    return value;
  }

  // curl's escapes; any other escaped character stands for itself.
  static char unescaped(char c) {
    switch (c) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'v': return '\v';
      default: return c;
    }
  }

  std::string_view rest_;
};

}  // namespace

Result<std::vector<ConfigLine>> parse_config_text(std::string_view text, std::string_view name) {
  std::vector<ConfigLine> lines;
  unsigned number = 0;
  while (!text.empty()) {
    ++number;
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    Result<std::vector<std::string>> arguments = LineReader(line).read();
    if (!arguments) {
      return Error(ErrorCategory::usage, std::string(name) + ":" + std::to_string(number) + ": " +
                                             arguments.error().message());
    }
    if (!arguments->empty()) lines.push_back({number, std::move(*arguments)});
  }
  return lines;
}

std::string default_config_path(const char* xdg_config_home, const char* home) {
  // The XDG base directory spec: a relative or empty value is to be ignored.
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') {
    return std::string(xdg_config_home) + "/sluice/config";
  }
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.config/sluice/config";
  return {};
}

}  // namespace sluice::cli
