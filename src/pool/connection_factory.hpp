#pragma once
// ConnectionFactory: where the pool's connections come from, and the one part of
// the library below src/client that names every protocol. A TCP attempt (connect/Connector: resolve, connect,
// TLS with ALPN) becomes an HTTP/1.1 or HTTP/2 connection by what TLS negotiated
// (or by prior knowledge over plain TCP); a QUIC attempt is an HTTP/3 connection.
// Each gets the Client's window policy and trace. Each origin's OriginConnector orders
// the attempts (HTTP/3 first and its fallback to TCP); the pool counts connections per
// origin through connection/connection.hpp alone.
// Ownership: owned by the pool, shared by its origins' connectors; HTTP thread only.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "connect/connector.hpp"
#include "connection/connection.hpp"
#include "net/socket_address.hpp"
#include "pool/pool_services.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

class ConnectionFactory {
 public:
  /// `services` outlives the factory (the pool holds both).
  explicit ConnectionFactory(const PoolServices& services) : services_(services) {}

  /// Starts a TCP (and for https, TLS) attempt to `url`'s origin, offering the ALPN
  /// protocols `policy` allows; `done` gets the transport or the error.
  std::unique_ptr<Connector> connect_tcp(const Url& url, VersionPolicy policy,
                                         const std::optional<ProxyHop>& proxy,
                                         std::chrono::milliseconds tls_timeout,
                                         std::uint64_t conn_id, Connector::Callback done);
  /// The connection a finished TCP attempt becomes: HTTP/2 when TLS chose h2 or
  /// `policy` is prior knowledge over plain TCP, HTTP/1.0 for http1_0 (its request
  /// lines and reuse rule), HTTP/1.1 otherwise.
  std::unique_ptr<Connection> over_tcp(std::unique_ptr<Transport> transport, VersionPolicy policy,
                                       ConnectionOwner& owner, std::uint64_t conn_id);
  /// Starts an HTTP/3 connection to `remote`, verifying the certificate for `host`;
  /// the owner hears on_connection_available when its handshake completed, or
  /// on_connection_closed (close_reason() says why).
  Result<std::unique_ptr<Connection>> connect_quic(const SocketAddress& remote,
                                                   const std::string& host,
                                                   std::chrono::milliseconds handshake_timeout,
                                                   ConnectionOwner& owner, std::uint64_t conn_id);

 private:
  const PoolServices& services_;
};

}  // namespace sluice
