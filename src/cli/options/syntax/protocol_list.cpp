#include "cli/options/syntax/protocol_list.hpp"

#include <algorithm>
#include <cctype>

#include "cli/ascii_case.hpp"

namespace sluice::cli {

namespace {

bool is_protocol_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '+' || c == '-' || c == '.';
  });
}

}  // namespace

Result<ProtocolSet> parse_protocol_list(std::string_view option, std::string_view text,
                                        ProtocolSet start) {
  ProtocolSet set = start;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    std::string_view item = rest.substr(0, comma);
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    char op = '+';
    if (!item.empty() && (item.front() == '=' || item.front() == '+' || item.front() == '-')) {
      op = item.front();
      item.remove_prefix(1);
    }
    if (op == '=') set = ProtocolSet{false, false};
    const bool on = op != '-';
    const std::string name = ascii_lowercase(item);
    if (name == "all") {
      set = ProtocolSet{on, on};
    } else if (name == "http") {
      set.http = on;
    } else if (name == "https") {
      set.https = on;
    } else if (!is_protocol_name(name)) {
      return Error(ErrorCode::usage, std::string(option) + ": '" + std::string(item) +
                                         "' is not a protocol name (for example =https)");
    }
  }
  return set;
}

std::optional<std::string> first_refused_url(const std::vector<std::string>& urls,
                                             ProtocolSet allowed) {
  for (const std::string& url : urls) {
    const std::size_t end = url.find("://");
    if (end == std::string::npos) continue;  // the URL parser reports it
    const std::string scheme = ascii_lowercase(std::string_view(url).substr(0, end));
    const bool on = scheme == "https" ? allowed.https : scheme == "http" ? allowed.http : true;
    if (!on) {
      return "protocol \"" + scheme + "\" is turned off by --proto (" + url + ")";
    }
  }
  return std::nullopt;
}

}  // namespace sluice::cli
