// NetworkSettings: ClientOptions' routing and DNS settings, checked and parsed.

#include "pool/network_settings.hpp"

#include <sys/socket.h>

#include <charconv>

namespace sluice {
namespace {

// "192.0.2.1", "192.0.2.1:5353", "::1", "[::1]:5353": what c-ares takes as a server.
bool is_name_server(std::string_view entry) {
  std::string host(entry);
  if (!entry.empty() && entry.front() == '[') {
    const std::size_t close = entry.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(entry.substr(1, close - 1));
    std::string_view rest = entry.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      rest.remove_prefix(1);
      unsigned port = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
      if (ec != std::errc() || end != rest.data() + rest.size() || port == 0 || port > 65535) {
        return false;
      }
    }
    return SocketAddress::from_ip(host, 0).has_value();
  }
  if (SocketAddress::from_ip(host, 0)) return true;  // IPv4, or IPv6 without a port
  const std::size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string_view port_text = entry.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  return ec == std::errc() && end == port_text.data() + port_text.size() && port > 0 &&
         port <= 65535 && SocketAddress::from_ip(std::string(entry.substr(0, colon)), 0);
}

Result<void> check_name_servers(const std::string& servers) {
  std::string_view rest = servers;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view entry = rest.substr(0, comma);
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    if (!is_name_server(entry)) {
      return Error(ErrorCode::usage, "dns_servers: '" + std::string(entry) +
                                         "' is not an IP address with an optional port "
                                         "(expected 192.0.2.1,[2001:db8::1]:5353)");
    }
  }
  return {};
}

}  // namespace

Result<NetworkSettings> NetworkSettings::from(const ClientOptions& options) {
  NetworkSettings settings;
  if (auto checked = check_name_servers(options.routing.dns_servers); !checked) {
    return std::move(checked).error();
  }
  settings.resolver.servers = options.routing.dns_servers;
  settings.resolver.family = options.routing.ip_version == IpVersion::v4_only   ? AF_INET
                             : options.routing.ip_version == IpVersion::v6_only ? AF_INET6
                                                                                : AF_UNSPEC;
  settings.resolver.timeout = options.routing.dns_timeout;
  settings.resolver.cache.max_ttl = options.routing.dns_cache_ttl;
  for (const std::string& entry : options.routing.resolve) {
    auto parsed = parse_resolve_override(entry);
    if (!parsed) return std::move(parsed).error();
    settings.resolver.overrides.push_back(std::move(*parsed));
  }
  for (const std::string& entry : options.routing.connect_to) {
    auto parsed = parse_connect_to_override(entry);
    if (!parsed) return std::move(parsed).error();
    settings.connect_to.push_back(std::move(*parsed));
  }
  settings.attempts.delay = options.routing.happy_eyeballs_delay;
  settings.attempts.timeout = options.routing.connect_attempt_timeout;
  if (!options.routing.unix_socket.empty() &&
      !SocketAddress::from_unix_path(options.routing.unix_socket)) {
    return Error(ErrorCode::usage, "unix_socket: the path '" + options.routing.unix_socket +
                                       "' is longer than a Unix socket address holds (107 bytes)");
  }
  settings.unix_socket = options.routing.unix_socket;
  if (auto checked = check_interface(options.routing.interface); !checked) {
    return Error(ErrorCode::local_bind_failed, "interface: " + checked.error().message());
  }
  if (options.routing.local_port_range == 0 ||
      std::uint32_t{options.routing.local_port} + options.routing.local_port_range - 1 > 65535) {
    return Error(ErrorCode::usage,
                 "local_port_range: " + std::to_string(options.routing.local_port_range) +
                     " ports from " + std::to_string(options.routing.local_port) +
                     " go past 65535 (or the range is 0)");
  }
  settings.attempts.local.interface = options.routing.interface;
  settings.attempts.local.port = options.routing.local_port;
  settings.attempts.local.port_range = options.routing.local_port_range;
  return settings;
}

}  // namespace sluice
