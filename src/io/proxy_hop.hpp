#pragma once
// ProxyHop: how a connection reaches its target through an HTTP proxy. The client
// layer chooses it (client/proxy_choice.hpp); Connector follows it: TCP to the proxy,
// then for a tunnel a CONNECT to the target before anything else (TLS included).
// Ownership: a value.

#include <cstdint>
#include <functional>
#include <string>

namespace sluice {

struct ProxyHop {
  std::string host;  ///< the proxy's host
  std::uint16_t port = 0;
  /// CONNECT to the target (always for https://, by request for http://); otherwise
  /// requests go to the proxy in absolute form.
  bool tunnel = false;
  std::string authorization;  ///< a Proxy-Authorization value, or empty
  std::string display;        ///< "127.0.0.1:3128": errors and trace lines name it

  /// Connections through different proxies, or with other credentials, never mix in
  /// the pool. The credentials enter it as a hash: a key may end up in a message.
  std::string key() const {
    return display + (tunnel ? " tunnel" : " forward") + " #" +
           std::to_string(std::hash<std::string>{}(authorization));
  }
};

}  // namespace sluice
