#include "connect/tunnel_handshake.hpp"

#include "connect/http_connect_handshake.hpp"
#include "connect/socks5_handshake.hpp"

namespace sluice {

std::unique_ptr<TunnelHandshake> make_tunnel_handshake(
    const ProxyHop& proxy, const std::string& host, std::uint16_t port,
    const std::optional<SocketAddress>& resolved) {
  if (speaks_http(proxy.kind)) {
    const bool ipv6 = host.find(':') != std::string::npos;
    return std::make_unique<HttpConnectHandshake>(
        proxy, (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port));
  }
  return std::make_unique<Socks5Handshake>(
      proxy, host, port, proxy.kind == ProxyKind::socks5 ? resolved : std::nullopt);
}

}  // namespace sluice
