// --alt-svc, --hsts and --ssl-sessions: files the library reads when the run starts
// and writes when it ends (ClientOptions::state). Opt-in only, as in curl: nothing
// is read or written without the option.
#include <array>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

const std::array<OptionSpec, 3> kStateOptions = {{
    // curl's --alt-svc "" turns Alt-Svc on without a file; sluice always honours
    // Alt-Svc in memory, so "" changes nothing.
    {'\0', "alt-svc", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.state_files.alt_svc_file = std::string(v);
       return {};
     }},
    // "" is HSTS in memory only, as in curl.
    {'\0', "hsts", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.state_files.hsts = true;
       s.options.state_files.hsts_file = std::string(v);
       return {};
     }},
    // curl 8.11's --ssl-sessions, in sluice's own file format (the man page says why).
    {'\0', "ssl-sessions", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--ssl-sessions needs a file name");
       s.options.state_files.tls_session_file = std::string(v);
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> state_option_specs() { return kStateOptions; }

}  // namespace sluice::cli
