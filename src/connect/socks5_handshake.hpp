#pragma once
// Socks5Handshake: the client side of SOCKS5 (RFC 1928) up to an open tunnel: the
// greeting, username/password authentication when credentials are given (RFC 1929),
// and CONNECT to the target by name (socks5h: the proxy resolves it) or by address
// (socks5: resolved here). Sans I/O.
// Ownership: owned by Connector; HTTP thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "connect/tunnel_handshake.hpp"

namespace sluice {

class Socks5Handshake final : public TunnelHandshake {
 public:
  /// `address`: the target's, when resolved here; otherwise `host` goes by name.
  Socks5Handshake(const ProxyHop& proxy, std::string host, std::uint16_t port,
                  std::optional<SocketAddress> address);

  std::string_view output() const override { return std::string_view(out_).substr(sent_); }
  void sent(std::size_t n) override { sent_ += n; }
  Progress feed(std::string_view bytes) override;
  Error error() const override { return *error_; }
  std::string answer() const override { return "SOCKS5 CONNECT granted"; }

 private:
  enum class Step { method, credentials, connect, open, failed };
  /// Queues the next message (replacing what was sent).
  void send(std::string message);
  /// Queues CONNECT; fails when the name does not fit its length byte.
  Progress send_connect();
  Progress fail(ErrorCode code, std::string what);
  /// Handles one complete answer of the current step at the front of in_; returns
  /// nullopt when more bytes are needed.
  std::optional<Progress> step();

  std::string proxy_display_;
  std::string user_, password_;
  std::string host_;
  std::uint16_t port_;
  std::optional<SocketAddress> address_;
  Step step_ = Step::method;
  std::string out_;
  std::size_t sent_ = 0;
  std::string in_;
  std::optional<Error> error_;
};

}  // namespace sluice
