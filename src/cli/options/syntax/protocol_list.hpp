#pragma once
// curl's protocol lists (--proto, --proto-redir): "=https", "-all,https", "+http",
// read left to right from a starting set. sluice speaks http and https; other names
// curl knows (ftp, file, ...) turn nothing on or off here, as they could never be
// used anyway. Pure functions; any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/error.hpp"

namespace sluice::cli {

struct ProtocolSet {
  bool http = true;
  bool https = true;
};

/// `text` applied to `start`; an empty name between commas is skipped. Errors (usage)
/// name `option`: only a name that is not a protocol name at all ("http s").
Result<ProtocolSet> parse_protocol_list(std::string_view option, std::string_view text,
                                        ProtocolSet start);

/// The message for the first URL whose scheme `allowed` turns off (curl's exit 1,
/// "Protocol ... not supported or disabled"), or nothing when every URL may run.
std::optional<std::string> first_refused_url(const std::vector<std::string>& urls,
                                             ProtocolSet allowed);

}  // namespace sluice::cli
