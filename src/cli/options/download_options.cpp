// The downloader's command-line options. Each marks the run as a download (files,
// not stdout), except --limit-rate and the --retry family, which a single fetch to
// stdout honours too (as in curl; -C is in range_options.cpp for that reason); values are checked here so a typo fails before
// any transfer.
// Ownership: constant tables and pure functions; main thread.

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/url_guess.hpp"

namespace sluice::cli {
namespace {

DownloadCliOptions& download(ParseState& state) {
  state.options.download.asked = true;
  return state.options.download;
}

Result<std::uint64_t> parse_count(std::string_view option, std::string_view text, std::uint64_t min,
                                  std::uint64_t max) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return usage_error(std::string(option) + ": '" + std::string(text) + "' is not a number from " +
                       std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

// curl's rate syntax: bytes per second, with K, M or G.
Result<void> apply_limit_rate(ParseState& state, std::string_view text) {
  Result<std::uint64_t> rate = parse_byte_count("--limit-rate", text);
  if (!rate) return std::move(rate).error();
  state.options.limit_rate = *rate;
  return {};
}

Result<void> apply_checksum(ParseState& state, std::string_view text) {
  constexpr std::string_view kPrefix = "sha256=";
  std::string hex;
  bool valid = text.starts_with(kPrefix) && text.size() == kPrefix.size() + 64;
  for (char c : valid ? text.substr(kPrefix.size()) : std::string_view()) {
    const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    valid = valid && digit;
    hex += (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  if (!valid) {
    return usage_error("--checksum: '" + std::string(text) +
                       "' is not sha256=HEX (64 hexadecimal digits)");
  }
  download(state).sha256 = std::move(hex);
  return {};
}

Result<void> apply_progress(ParseState& state, std::string_view text) {
  ProgressChoice& mode = download(state).progress;
  if (text == "bar") {
    mode = ProgressChoice::bar;
  } else if (text == "line") {
    mode = ProgressChoice::line;
  } else if (text == "none") {
    mode = ProgressChoice::none;
  } else if (text == "auto") {
    mode = ProgressChoice::automatic;
  } else {
    return usage_error("--progress: '" + std::string(text) + "' is not bar, line, none or auto");
  }
  return {};
}

const std::array<OptionSpec, 18> kDownloadOptions = {{
    {'O', "remote-name", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).remote_name = true;
       return {};
     }},
    {'J', "remote-header-name", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).remote_header_name = true;
       return {};
     }},
    {'\0', "output-dir", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--output-dir: the directory name is empty");
       download(s).output_dir = std::string(v);
       return {};
     }},
    {'\0', "create-dirs", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).create_dirs = true;
       return {};
     }},
    // Not -i: that is curl's --include.
    {'\0', "input-file", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--input-file: the file name is empty (use - for stdin)");
       download(s).url_lists.emplace_back(v);
       return {};
     }},
    {'Z', "parallel", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).parallel = true;
       return {};
     }},
    {'\0', "parallel-max", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto n = parse_count("--parallel-max", v, 1, 100);
       if (!n) return std::move(n).error();
       download(s).parallel_max = static_cast<unsigned>(*n);
       return {};
     }},
    {'\0', "split", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto n = parse_count("--split", v, 1, 16);
       if (!n) return std::move(n).error();
       download(s).split = static_cast<unsigned>(*n);
       return {};
     }},
    {'\0', "checksum", true, apply_checksum},
    {'\0', "mirror", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--mirror: give a URL of the same file");
       download(s).mirrors.push_back(with_guessed_scheme(v));
       return {};
     }},
    {'\0', "limit-rate", true, apply_limit_rate},
    {'\0', "retry", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto n = parse_count("--retry", v, 0, 1000);
       if (!n) return std::move(n).error();
       s.options.retry.retries = static_cast<int>(*n);
       return {};
     }},
    {'\0', "retry-delay", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto delay = parse_seconds("--retry-delay", v);
       if (!delay) return std::move(delay).error();
       s.options.retry.delay = *delay;
       return {};
     }},
    {'\0', "retry-all-errors", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.retry.all_errors = true;
       return {};
     }},
    {'\0', "max-host-connections", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto n = parse_count("--max-host-connections", v, 1, 64);
       if (!n) return std::move(n).error();
       download(s).max_host_connections = static_cast<unsigned>(*n);
       return {};
     }},
    {'\0', "progress", true, apply_progress},
    {'\0', "no-progress", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).progress = ProgressChoice::none;
       return {};
     }},
    {'\0', "json-summary", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       download(s).summary_json = true;
       return {};
     }},
}};

}  // namespace

// curl's size syntax: bytes, with K, M or G (powers of 1024).
Result<std::uint64_t> parse_byte_count(std::string_view option, std::string_view text) {
  std::uint64_t unit = 1;
  std::string_view digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K': unit = 1024; break;
      case 'm':
      case 'M': unit = 1024 * 1024; break;
      case 'g':
      case 'G': unit = 1024 * 1024 * 1024; break;
      default: break;
    }
    if (unit != 1) digits.remove_suffix(1);
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value == 0 ||
      value > (std::uint64_t{1} << 40)) {
    return usage_error(std::string(option) + ": '" + std::string(text) +
                       "' is not a size (bytes, e.g. 500K or 2M)");
  }
  return value * unit;
}

std::span<const OptionSpec> download_option_specs() { return kDownloadOptions; }

}  // namespace sluice::cli
