#pragma once
// ProxyHop: how a connection reaches its target through a proxy. The client layer
// chooses it (auth/proxy_choice.hpp); Connector follows it: TCP to the proxy, TLS
// to an https:// proxy, then for a tunnel the proxy's handshake (HTTP CONNECT, or
// SOCKS5's) before anything else, the target's TLS included.
// Ownership: a value.

#include <cstdint>
#include <functional>
#include <string>

namespace sluice {

enum class ProxyKind {
  http,     ///< an HTTP proxy: CONNECT tunnels, or requests forwarded in absolute form
  https,    ///< the same, spoken over TLS to the proxy (https://)
  socks5,   ///< SOCKS5, the target's name resolved here (socks5://)
  socks5h,  ///< SOCKS5, the target's name resolved by the proxy (socks5h://)
};

/// Whether the proxy speaks HTTP (CONNECT, or forwarding), not SOCKS.
inline bool speaks_http(ProxyKind kind) {
  return kind == ProxyKind::http || kind == ProxyKind::https;
}

struct ProxyHop {
  ProxyKind kind = ProxyKind::http;
  std::string host;  ///< the proxy's host
  std::uint16_t port = 0;
  /// CONNECT to the target (always for https://, by request for http://); otherwise
  /// requests go to the proxy in absolute form.
  bool tunnel = false;
  std::string authorization;   ///< HTTP: a Proxy-Authorization value, or empty
  std::string user, password;  ///< SOCKS5: username/password (RFC 1929), or empty
  std::string display;         ///< "127.0.0.1:3128": errors and trace lines name it

  /// Connections through different proxies, or with other credentials, never mix in
  /// the pool. The credentials enter it as a hash: a key may end up in a message.
  std::string key() const {
    return std::to_string(static_cast<int>(kind)) + " " + display +
           (tunnel ? " tunnel" : " forward") + " #" +
           std::to_string(std::hash<std::string>{}(authorization + '\n' + user + '\n' + password));
  }
};

}  // namespace sluice
