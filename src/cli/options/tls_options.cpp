// The TLS options of the `sluice` command, under curl's names: --cert, --key, --pass,
// --capath, --tlsv1.2, --tlsv1.3, --tls-max, --ciphers, --tls13-ciphers,
// --pinnedpubkey, --no-sessionid, --tls-earlydata. Files are read by Client::create, which names them.
// Ownership: constant tables; applied on main's thread.

#include <array>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

Result<void> apply_tls_max(ParseState& s, std::string_view v) {
  if (v == "1.2") {
    s.options.tls.tls12_max = true;
  } else if (v == "1.3" || v == "default") {
    s.options.tls.tls12_max = false;
  } else if (v == "1.0" || v == "1.1") {
    return usage_error("--tls-max " + std::string(v) +
                       ": sluice speaks TLS 1.2 and 1.3 only (1.0 and 1.1 are deprecated)");
  } else {
    return usage_error("--tls-max: '" + std::string(v) + "' is not a TLS version (1.2 or 1.3)");
  }
  return {};
}

Result<void> non_empty(std::string_view option, std::string_view v, std::string& into) {
  if (v.empty()) return usage_error(std::string(option) + " needs a value");
  into = std::string(v);
  return {};
}

const std::array<OptionSpec, 13> kTlsOptions = {{
    {'E', "cert", true,
     [](ParseState& s, std::string_view v) { return non_empty("--cert", v, s.options.tls.cert); }},
    {'\0', "key", true,
     [](ParseState& s, std::string_view v) { return non_empty("--key", v, s.options.tls.key); }},
    {'\0', "pass", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.tls.pass = std::string(v);
       return {};
     }},
    {'\0', "capath", true,
     [](ParseState& s, std::string_view v) {
       return non_empty("--capath", v, s.options.tls.capath);
     }},
    {'\0', "tlsv1.2", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.tls.tls13_min = false;
       return {};
     }},
    {'\0', "tlsv1.3", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.tls.tls13_min = true;
       return {};
     }},
    {'\0', "tls-max", true, apply_tls_max},
    {'\0', "ciphers", true,
     [](ParseState& s, std::string_view v) {
       return non_empty("--ciphers", v, s.options.tls.ciphers);
     }},
    {'\0', "tls13-ciphers", true,
     [](ParseState& s, std::string_view v) {
       return non_empty("--tls13-ciphers", v, s.options.tls.tls13_ciphers);
     }},
    {'\0', "pinnedpubkey", true,
     [](ParseState& s, std::string_view v) {
       return non_empty("--pinnedpubkey", v, s.options.tls.pinned_pubkey);
     }},
    {'\0', "no-sessionid", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.tls.no_sessionid = true;
       return {};
     }},
    {'\0', "sessionid", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.tls.no_sessionid = false;
       return {};
     }},
    {'\0', "tls-earlydata", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.tls.early_data = true;
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> tls_option_specs() { return kTlsOptions; }

}  // namespace sluice::cli
