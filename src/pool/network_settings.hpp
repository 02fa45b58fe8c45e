#pragma once
// NetworkSettings: the ClientOptions that decide where connections go (-4/-6,
// --resolve, --connect-to, --unix-socket, --dns-servers, the DNS cache and timeout,
// Happy Eyeballs, --interface and --local-port), checked and parsed once when the
// Client is made.
// Ownership: built by Client::create, then read-only (the HTTP thread reads it).

#include <string>
#include <vector>

#include "dns/host_overrides.hpp"
#include "dns/resolver.hpp"
#include "net/tcp_connect.hpp"
#include "sluice/client.hpp"

namespace sluice {

struct NetworkSettings {
  ResolverOptions resolver;
  std::vector<ConnectToOverride> connect_to;
  ConnectAttempts attempts;
  std::string unix_socket;

  /// Errors (usage) name the option and the entry that is wrong.
  static Result<NetworkSettings> from(const ClientOptions& options);
};

}  // namespace sluice
