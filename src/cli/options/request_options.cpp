// Options that curl scripts pass and that change little beyond one field: --url,
// -e/--referer, the progress choices -# and --no-progress-meter, -N, --http1.0.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/url_guess.hpp"

namespace sluice::cli {
namespace {

// curl's "-e URL;auto": the text before ";auto" (maybe empty) is the first request's
// Referer, and with -L each hop sends the URL it was redirected from
// (RedirectPolicy::auto_referer).
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

// curl's -0: the library's HTTP/1.0 (VersionPolicy::http1_0). An upload of unknown
// length (-T -) cannot go in 1.0; the library refuses it with a message that says so.
Result<void> use_http10(ParseState& state, std::string_view) {
  state.options.version = VersionPolicy::http1_0;
  return {};
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
    {'0', "http1.0", false, use_http10},
}};

}  // namespace

std::span<const OptionSpec> request_option_specs() { return kOptions; }

}  // namespace sluice::cli
