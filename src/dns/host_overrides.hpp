#pragma once
// Where a name goes, overridden by the user: curl's --resolve (fixed addresses for a
// name and port) and --connect-to (connect to another host and port, while TLS and
// the Host header keep the original name). Parsers and matching; values, any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/socket_address.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// "HOST:PORT:ADDR[,ADDR...]"; PORT "*" matches every port (then 0 here).
struct ResolveOverride {
  std::string host;  ///< lowercase, without brackets
  std::uint16_t port = 0;
  std::vector<SocketAddress> addresses;  ///< port 0: the request's port is used
};
/// Errors (usage) quote the entry and say the expected form.
Result<ResolveOverride> parse_resolve_override(std::string_view text);

/// "HOST:PORT:CONNECT_HOST:CONNECT_PORT"; an empty HOST or PORT matches any, an empty
/// CONNECT_HOST or CONNECT_PORT keeps the original. IPv6 hosts in brackets.
struct ConnectToOverride {
  std::string host;                ///< lowercase, without brackets; empty: any
  std::uint16_t port = 0;          ///< 0: any
  std::string connect_host;        ///< without brackets; empty: the request's host
  std::uint16_t connect_port = 0;  ///< 0: the request's port
};
Result<ConnectToOverride> parse_connect_to_override(std::string_view text);

/// The first --connect-to entry that matches host:port, if any (curl: the first wins).
const ConnectToOverride* find_connect_to(const std::vector<ConnectToOverride>& entries,
                                         const std::string& host, std::uint16_t port);
/// The --resolve entry for host:port, if any.
const ResolveOverride* find_resolve(const std::vector<ResolveOverride>& entries,
                                    const std::string& host, std::uint16_t port);

}  // namespace sluice
