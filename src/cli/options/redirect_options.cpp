// Which protocols a transfer and its redirects may use, and what a redirect keeps:
// --proto, --proto-redir, --post301, --post302, --post303, --location-trusted.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/protocol_list.hpp"

namespace sluice::cli {
namespace {

Result<void> apply_proto(ParseState& state, std::string_view text) {
  Result<ProtocolSet> set = parse_protocol_list("--proto", text, state.options.protocols);
  if (!set) return std::move(set).error();
  state.options.protocols = *set;
  return {};
}

// curl follows https to http by default; sluice refuses that downgrade unless the
// list itself turns http on. So the list is read twice: from "both on" for what a
// redirect may reach at all, and from "https only" for whether it names http.
Result<void> apply_proto_redir(ParseState& state, std::string_view text) {
  Result<ProtocolSet> reach = parse_protocol_list("--proto-redir", text, ProtocolSet{});
  if (!reach) return std::move(reach).error();
  Result<ProtocolSet> named = parse_protocol_list("--proto-redir", text, ProtocolSet{false, true});
  if (!named) return std::move(named).error();
  state.options.redirect_protocols = *reach;
  state.options.redirect_to_http = named->http;
  return {};
}

const std::array<OptionSpec, 6> kOptions = {{
    {'\0', "proto", true, apply_proto},
    {'\0', "proto-redir", true, apply_proto_redir},
    {'\0', "post301", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.keep_post_on_301 = true;
       return {};
     }},
    {'\0', "post302", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.keep_post_on_302 = true;
       return {};
     }},
    {'\0', "post303", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.keep_post_on_303 = true;
       return {};
     }},
    {'\0', "location-trusted", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.follow_redirects = true;  // curl: "Like -L, but ..."
       s.options.credentials_to_other_origins = true;
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> redirect_option_specs() { return kOptions; }

}  // namespace sluice::cli
