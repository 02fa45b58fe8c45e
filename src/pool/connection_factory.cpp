// ConnectionFactory: the protocols behind the pool (see connection_factory.hpp).
//
// Ownership: HTTP thread only.

#include "pool/connection_factory.hpp"

#include "http1/h1_connection.hpp"
#include "http2/h2_connection.hpp"
#include "http3/h3_connection.hpp"
#include "net/wire_tap_transport.hpp"

namespace sluice {
namespace {

std::vector<std::string> alpn_for(VersionPolicy policy) {
  if (policy == VersionPolicy::http1_only) return {"http/1.1"};
  if (policy == VersionPolicy::http1_0) return {"http/1.0"};
  if (policy == VersionPolicy::http2_prior_knowledge) return {"h2"};
  return {"h2", "http/1.1"};
}

}  // namespace

std::unique_ptr<Connector> ConnectionFactory::connect_tcp(const Url& url, VersionPolicy policy,
                                                          const std::optional<ProxyHop>& proxy,
                                                          std::chrono::milliseconds tls_timeout,
                                                          std::uint64_t conn_id,
                                                          Connector::Callback done) {
  Connector::Options options;
  options.tls_timeout = tls_timeout;
  options.alpn = alpn_for(policy);
  options.conn_id = conn_id;
  options.trace = &services_.trace;
  const NetworkSettings& network = services_.network;
  options.attempts = network.attempts;
  options.proxy_tls = services_.proxy_tls;
  Connector::Target target;
  target.host = url.host;
  target.port = url.port;
  target.tls = url.is_https();
  target.origin = url.origin();
  target.proxy = proxy;
  if (const auto* elsewhere = find_connect_to(network.connect_to, url.host, url.port)) {
    target.connect_host = elsewhere->connect_host;
    target.connect_port = elsewhere->connect_port;
  }
  target.unix_socket = network.unix_socket;
  if (!target.unix_socket.empty()) target.proxy.reset();  // the socket is the whole route
  return std::make_unique<Connector>(services_.loop, services_.resolver, services_.tls, target,
                                     options, std::move(done));
}

std::unique_ptr<Connection> ConnectionFactory::over_tcp(std::unique_ptr<Transport> transport,
                                                        VersionPolicy policy,
                                                        ConnectionOwner& owner,
                                                        std::uint64_t conn_id) {
  // The connector's own line says the handshake is done (src/connect/connector.cpp); this
  // one says which kind it was, for -v and for telling whether resumption works.
  if (transport->is_tls() && services_.trace.on()) {
    services_.trace.emit(
        conn_id, "connect",
        std::string("TLS handshake done, ") + (transport->resumed_session() ? "session resumed"
                                               : transport->offered_session()
                                                   ? "full handshake (the server declined "
                                                     "the cached session)"
                                                   : "full handshake"));
  }
  const bool h2 = transport->alpn() == "h2" ||
                  (policy == VersionPolicy::http2_prior_knowledge && !transport->is_tls());
  // Wrapped only when a tap is set: an untapped connection pays nothing.
  if (services_.options.wire_tap) {
    transport = make_wire_tap_transport(std::move(transport), services_.options.wire_tap, conn_id);
  }
  if (!h2) {
    const auto dialect = policy == VersionPolicy::http1_0 ? H1Dialect::http1_0 : H1Dialect::http1_1;
    return std::make_unique<H1Connection>(services_.loop, std::move(transport), owner, conn_id,
                                          services_.trace, services_.window, dialect);
  }
  H2SessionOptions session;
  session.window = services_.window;
  return std::make_unique<H2Connection>(services_.loop, std::move(transport), owner, conn_id,
                                        services_.trace, H2Timing{}, std::move(session));
}

Result<std::unique_ptr<Connection>> ConnectionFactory::connect_quic(
    const SocketAddress& remote, const std::string& host,
    std::chrono::milliseconds handshake_timeout, ConnectionOwner& owner, std::uint64_t conn_id) {
  auto tls = services_.quic_tls();
  if (!tls) return std::move(tls).error();
  QuicOptions options;
  options.remote = remote;
  options.host = host;
  options.local = services_.network.attempts.local;
  options.tls_context = std::move(*tls);
  options.handshake_timeout = handshake_timeout;
  H3SessionOptions session;
  session.window = services_.window;
  session.connection_window = options.connection_window;
  auto conn =
      H3Connection::connect(services_.loop, std::move(options), owner, conn_id, services_.trace,
                            std::move(session), services_.options.wire_tap);
  if (!conn) return std::move(conn).error();
  // The pool completes the timing when the handshake is done; where it left from is
  // known now.
  ConnectTiming timing;
  timing.local_ip = (*conn)->local_address().ip();
  timing.local_port = (*conn)->local_address().port();
  (*conn)->set_connect_timing(std::move(timing));
  return std::unique_ptr<Connection>(std::move(*conn));
}

}  // namespace sluice
