// Options that curl scripts pass and that change little beyond one field: --url,
// -e/--referer, the progress choices -# and --no-progress-meter, -N, --http1.0.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/url_guess.hpp"

namespace sluice::cli {
namespace {

// curl's "-e URL;auto": the text before ";auto" (maybe empty) is the first request's
// Referer, and with -L each hop would send the URL it was redirected from. The
// library has no per-hop header hook, so sluice sends only the first part; the man
// page says so.
Result<void> apply_referer(ParseState& state, std::string_view text) {
  constexpr std::string_view kAuto = ";auto";
  const bool automatic = text.ends_with(kAuto);
  if (automatic) text.remove_suffix(kAuto.size());
  if (Result<void> valid = validate_header_value(text); !valid) {
    return usage_error("-e: " + valid.error().message());
  }
  state.options.referer = text.empty() ? std::nullopt : std::optional<std::string>(text);
  state.options.referer_auto = automatic;
  return {};
}

// sluice's HTTP/1 codec writes only HTTP/1.1 request lines and keeps connections
// alive; HTTP/1.0 would need its own framing rules (no chunked upload, close
// delimited bodies), so it is refused rather than faked.
Result<void> refuse_http10(ParseState&, std::string_view) {
  return usage_error("--http1.0: sluice does not speak HTTP/1.0 (use --http1.1)");
}

// -# and --no-progress-meter choose the meter without making the run a download,
// unlike --progress (download_options.cpp).
const std::array<OptionSpec, 6> kOptions = {{
    {'\0', "url", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.urls.push_back(with_guessed_scheme(v));
       return {};
     }},
    {'e', "referer", true, apply_referer},
    {'\0', "no-progress-meter", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.download.progress = ProgressChoice::none;
       return {};
     }},
    {'#', "progress-bar", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.download.progress = ProgressChoice::bar;
       return {};
     }},
    // Output is written as it arrives, never held back; -N changes nothing.
    {'N', "no-buffer", false, [](ParseState&, std::string_view) -> Result<void> { return {}; }},
    {'\0', "http1.0", false, refuse_http10},
}};

}  // namespace

std::span<const OptionSpec> request_option_specs() { return kOptions; }

}  // namespace sluice::cli
