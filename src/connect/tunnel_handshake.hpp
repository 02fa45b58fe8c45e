#pragma once
// TunnelHandshake: what Connector runs on a socket connected to a proxy before the
// target's own bytes (TLS, or plain HTTP) may flow: HTTP's CONNECT or SOCKS5's
// greeting and CONNECT. Sans I/O: it says what to send, takes what arrives, and
// decides. Errors name the proxy and say what it answered.
// Ownership: owned by Connector; HTTP thread only.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "connect/proxy_hop.hpp"
#include "net/socket_address.hpp"
#include "sluice/error.hpp"

namespace sluice {

class TunnelHandshake {
 public:
  enum class Progress { waiting, open, failed };
  virtual ~TunnelHandshake() = default;
  /// Bytes to send now (empty while an answer is awaited).
  virtual std::string_view output() const = 0;
  /// `n` bytes of output() went out.
  virtual void sent(std::size_t n) = 0;
  /// Takes received bytes; open once the tunnel carries the target's bytes.
  virtual Progress feed(std::string_view bytes) = 0;
  /// Why it failed (after Progress::failed).
  virtual Error error() const = 0;
  /// For the trace: what the proxy answered ("200 Connection established", "granted").
  virtual std::string answer() const = 0;
};

/// The handshake `proxy` asks for, to reach `host`:`port` (for SOCKS5 with local
/// name resolution, at `resolved`).
std::unique_ptr<TunnelHandshake> make_tunnel_handshake(
    const ProxyHop& proxy, const std::string& host, std::uint16_t port,
    const std::optional<SocketAddress>& resolved);

}  // namespace sluice
