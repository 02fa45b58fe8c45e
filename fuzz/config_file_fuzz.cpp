// Fuzz target: parse_config_text (src/cli/options/config_file), the reader of -K
// files and the default config file: curl's .curlrc syntax. The file is the user's
// (or another program's) text, so anything may be in it.
// Input: the whole file's text.
// Invariants checked: a refusal says "fuzz.conf:LINE: why" with a line the file has;
// parsed lines come in order, each with an option ("-x" or "--x") and at most one
// value; an option has no blank, and an undashed name no '=' or ':'; each line
// written back as `--option "value"` (quoted, escaped) parses to the same arguments,
// and the whole file written back that way parses to the same lines.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/syntax/config_file.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::cli::ConfigLine;
using sluice::cli::parse_config_text;
using sluice::fuzz::check;

// A value in double quotes, with the escapes the reader undoes.
std::string quoted(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string written_back(const ConfigLine& line) {
  std::string out = line.arguments[0];
  if (line.arguments.size() == 2) out += " " + quoted(line.arguments[1]);
  return out;
}

void check_line(const ConfigLine& line, unsigned previous, std::size_t line_count) {
  check(line.number > previous && line.number <= line_count, "lines come in order, numbered");
  check(line.arguments.size() == 1 || line.arguments.size() == 2, "an option and at most a value");
  const std::string& option = line.arguments[0];
  check(option.size() >= 2 && option[0] == '-' && option != "--", "an option starts with a dash");
  check(option.find_first_of(" \t\r\v\f\n") == std::string::npos, "an option holds no blank");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t line_count = 0;
  for (std::size_t at = 0; at < text.size(); ++line_count) {
    const std::size_t newline = text.find('\n', at);
    at = newline == std::string_view::npos ? text.size() : newline + 1;
  }
  auto lines = parse_config_text(text, "fuzz.conf");
  if (!lines) {
    const std::string& message = lines.error().message();
    check(message.starts_with("fuzz.conf:"), "a refusal names the file");
    const std::size_t number = std::stoul(message.substr(10));
    check(number >= 1 && number <= line_count, "a refusal names a line of the file");
    return 0;
  }
  std::string file;
  unsigned previous = 0;
  for (const ConfigLine& line : *lines) {
    check_line(line, previous, line_count);
    previous = line.number;
    // A dashed option is written as it is; an undashed one came back with "--".
    const std::string back = written_back(line);
    auto again = parse_config_text(back, "again");
    check(again.ok() && again->size() == 1, "a line written back parses");
    check(again->front().arguments == line.arguments, "a line written back gives its arguments");
    file += back + "\n";
  }
  auto whole = parse_config_text(file, "again");
  check(whole.ok() && whole->size() == lines->size(), "the file written back parses");
  for (std::size_t i = 0; i < lines->size(); ++i) {
    check((*whole)[i].arguments == (*lines)[i].arguments, "the file written back is the same");
  }
  return 0;
}
