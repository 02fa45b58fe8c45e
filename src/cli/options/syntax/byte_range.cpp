#include "cli/options/syntax/byte_range.hpp"

#include <charconv>

namespace sluice::cli {
namespace {

Error bad_range(std::string_view option, std::string_view text, const std::string& why) {
  return Error(ErrorCategory::usage, std::string(option) + ": '" + std::string(text) +
                                         "' is not a byte range (" + why +
                                         "; e.g. 0-499, 500-, -500 or 0-1,5-6)");
}

// Digits only (no sign, no spaces), or nullopt; empty text is "absent", not an error.
Result<std::optional<std::uint64_t>> number_of(std::string_view digits) {
  if (digits.empty()) return std::optional<std::uint64_t>();
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size())
    return Error(ErrorCategory::usage, "");
  return std::optional<std::uint64_t>(value);
}

}  // namespace

Result<ByteRanges> parse_byte_ranges(std::string_view option, std::string_view text) {
  ByteRanges parsed;
  for (const char c : text) {
    if ((c < '0' || c > '9') && c != '-' && c != ',')
      return bad_range(option, text, std::string("'") + c + "' is not a digit, '-' or ','");
  }
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const std::size_t dash = part.find('-');
    // curl's reading of a bare number: from there to the end.
    const std::string_view first_text = part.substr(0, dash);
    const std::string_view last_text =
        dash == std::string_view::npos ? std::string_view() : part.substr(dash + 1);
    if (part.empty() || part == "-") return bad_range(option, text, "a range is empty");
    if (last_text.find('-') != std::string_view::npos)
      return bad_range(option, text, "a range has two '-'");
    auto first = number_of(first_text);
    auto last = number_of(last_text);
    if (!first || !last) return bad_range(option, text, "a number is too large");
    if (*first && *last && **first > **last)
      return bad_range(option, text, "a first byte is after its last");
    if (!*first && *last && **last == 0)
      return bad_range(option, text, "the last 0 bytes are no bytes");
    parsed.ranges.push_back(ByteRange{*first, *last});
    if (!parsed.text.empty()) parsed.text += ',';
    parsed.text += dash == std::string_view::npos ? std::string(part) + "-" : std::string(part);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return parsed;
}

}  // namespace sluice::cli
