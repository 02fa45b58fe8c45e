// How fast a run must go, and how fast it may: curl's --speed-limit (-Y) and
// --speed-time (-y), which abort a transfer slower than BYTES a second for SECONDS
// (exit 28, ClientOptions::low_speed), and --limit-rate-total, one rate for every
// transfer of the run together (aria2c's --max-overall-download-limit), beside
// --limit-rate's per transfer.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

// curl takes a plain whole number for both (0 turns the check off).
Result<std::uint64_t> parse_whole(std::string_view option, std::string_view text,
                                  std::uint64_t most) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > most) {
    return usage_error(std::string(option) + ": '" + std::string(text) +
                       "' is not a whole number from 0 to " + std::to_string(most));
  }
  return value;
}

Result<void> apply_speed_limit(ParseState& state, std::string_view text) {
  Result<std::uint64_t> bytes = parse_whole("--speed-limit", text, std::uint64_t{1} << 40);
  if (!bytes) return std::move(bytes).error();
  state.options.speed_limit = *bytes;
  return {};
}

// A day is far beyond any use, and keeps the seconds inside the library's range.
Result<void> apply_speed_time(ParseState& state, std::string_view text) {
  Result<std::uint64_t> seconds = parse_whole("--speed-time", text, 86'400);
  if (!seconds) return std::move(seconds).error();
  state.options.speed_time = std::chrono::seconds(static_cast<long>(*seconds));
  return {};
}

Result<void> apply_limit_rate_total(ParseState& state, std::string_view text) {
  Result<std::uint64_t> rate = parse_byte_count("--limit-rate-total", text);
  if (!rate) return std::move(rate).error();
  state.options.limit_rate_total = *rate;
  return {};
}

const std::array<OptionSpec, 3> kSpeedOptions = {{
    {'Y', "speed-limit", true, apply_speed_limit},
    {'y', "speed-time", true, apply_speed_time},
    {'\0', "limit-rate-total", true, apply_limit_rate_total},
}};

}  // namespace

std::span<const OptionSpec> speed_option_specs() { return kSpeedOptions; }

LowSpeedLimit low_speed_limit(const CliOptions& options) {
  LowSpeedLimit limit;
  // curl: --speed-time alone means a limit of 1 byte a second; --speed-limit alone
  // a time of 30 seconds (the library's default).
  if (options.speed_time) {
    limit.time = *options.speed_time;
    limit.bytes_per_second = 1;
  }
  if (options.speed_limit) limit.bytes_per_second = *options.speed_limit;
  return limit;
}

}  // namespace sluice::cli
