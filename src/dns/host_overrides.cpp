// Parsing and matching of curl's --resolve and --connect-to entries.

#include "dns/host_overrides.hpp"

#include <algorithm>
#include <charconv>

#include "core/ascii_case.hpp"

namespace sluice {
namespace {

std::string_view strip_brackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

// The next field up to ':' (a bracketed IPv6 literal may hold colons); advances `rest`.
std::optional<std::string_view> take_field(std::string_view& rest) {
  std::size_t end = 0;
  if (!rest.empty() && rest.front() == '[') {
    end = rest.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
    if (end < rest.size() && rest[end] != ':') return std::nullopt;
  } else {
    end = std::min(rest.find(':'), rest.size());
  }
  std::string_view field = rest.substr(0, end);
  rest.remove_prefix(std::min(end + 1, rest.size()));
  return field;
}

// A port, "" (allowed when `empty_ok`: 0) or "*" (when `star_ok`: 0).
std::optional<std::uint16_t> parse_port(std::string_view text, bool empty_ok, bool star_ok) {
  if (text.empty()) return empty_ok ? std::optional<std::uint16_t>(0) : std::nullopt;
  if (text == "*") return star_ok ? std::optional<std::uint16_t>(0) : std::nullopt;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

Error usage_error(std::string_view option, std::string_view text, std::string_view form,
                  std::string_view why) {
  return Error(ErrorCode::usage, std::string(option) + " '" + std::string(text) + "': " +
                                     std::string(why) + " (expected " + std::string(form) + ")");
}

}  // namespace

Result<ResolveOverride> parse_resolve_override(std::string_view text) {
  constexpr std::string_view form = "HOST:PORT:ADDRESS[,ADDRESS...]";
  std::string_view rest = text;
  const auto host = take_field(rest);
  const auto port_text = take_field(rest);
  if (!host || host->empty() || !port_text || rest.empty()) {
    return usage_error("--resolve", text, form, "missing a part");
  }
  const auto port = parse_port(*port_text, false, true);
  if (!port) return usage_error("--resolve", text, form, "bad port");
  ResolveOverride entry{ascii_lowercase(strip_brackets(*host)), *port, {}};
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string address_text(rest.substr(0, comma));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    auto address = SocketAddress::from_ip(address_text, 0);
    if (!address) {
      return usage_error("--resolve", text, form, "'" + address_text + "' is not an IP address");
    }
    entry.addresses.push_back(*address);
  }
  return entry;
}

Result<ConnectToOverride> parse_connect_to_override(std::string_view text) {
  constexpr std::string_view form = "HOST:PORT:CONNECT_HOST:CONNECT_PORT";
  std::string_view rest = text;
  const auto host = take_field(rest);
  const auto port_text = take_field(rest);
  const std::size_t before_to_host = rest.size();
  const auto to_host = take_field(rest);
  const bool has_fourth = to_host && before_to_host > to_host->size();  // a ':' followed it
  if (!host || !port_text || !to_host || !has_fourth || rest.find(':') != std::string_view::npos) {
    return usage_error("--connect-to", text, form, "needs four parts separated by ':'");
  }
  const auto port = parse_port(*port_text, true, false);
  const auto to_port = parse_port(rest, true, false);
  if (!port || !to_port) return usage_error("--connect-to", text, form, "bad port");
  return ConnectToOverride{ascii_lowercase(strip_brackets(*host)), *port,
                           std::string(strip_brackets(*to_host)), *to_port};
}

const ConnectToOverride* find_connect_to(const std::vector<ConnectToOverride>& entries,
                                         const std::string& host, std::uint16_t port) {
  const std::string name = ascii_lowercase(strip_brackets(host));
  for (const auto& entry : entries) {
    if ((entry.host.empty() || entry.host == name) && (entry.port == 0 || entry.port == port)) {
      return &entry;
    }
  }
  return nullptr;
}

const ResolveOverride* find_resolve(const std::vector<ResolveOverride>& entries,
                                    const std::string& host, std::uint16_t port) {
  const std::string name = ascii_lowercase(strip_brackets(host));
  for (const auto& entry : entries) {
    if (entry.host == name && (entry.port == 0 || entry.port == port)) return &entry;
  }
  return nullptr;
}

}  // namespace sluice
