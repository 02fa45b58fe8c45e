// The options that choose which bytes of the resource reach which bytes of the
// output: -C/--continue-at, -r/--range, --no-clobber/--clobber. Both modes have
// them (a single fetch as curl does, and the downloader), so none of them makes a
// run a download.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/byte_range.hpp"

namespace sluice::cli {
namespace {

// "-C -": from what the output file holds; "-C OFFSET": from that byte, as curl.
Result<void> apply_continue_at(ParseState& state, std::string_view text) {
  CliOptions& options = state.options;
  if (text == "-") {
    options.download.resume = true;
    options.continue_at.reset();
    return {};
  }
  std::uint64_t offset = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), offset);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return usage_error("-C: '" + std::string(text) +
                       "' is neither '-' (continue from the output file's size) nor a byte offset");
  }
  options.download.resume = false;
  options.continue_at = offset;
  return {};
}

Result<void> apply_range(ParseState& state, std::string_view text) {
  Result<ByteRanges> ranges = parse_byte_ranges("-r", text);
  if (!ranges) return std::move(ranges).error();
  state.options.range = std::move(*ranges);
  return {};
}

const std::array<OptionSpec, 4> kOptions = {{
    {'C', "continue-at", true, apply_continue_at},
    {'r', "range", true, apply_range},
    {'\0', "no-clobber", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.no_clobber = true;
       s.options.clobber = false;
       return {};
     }},
    {'\0', "clobber", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.no_clobber = false;
       s.options.clobber = true;
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> range_option_specs() { return kOptions; }

}  // namespace sluice::cli
