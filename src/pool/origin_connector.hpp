#pragma once
// OriginConnector: how the connections of one origin come to be. It owns what is on
// the way to a connection: the TCP (and TLS) connects in flight, and the origin's
// HTTP/3 attempt. For each connection the pool asks for, it chooses QUIC or TCP
// (http3_target), and when a QUIC attempt fails it decides what that means: the
// origin's h3 is marked broken for http3_broken_for and the pool may use TCP, except
// with http3_only, where the failure is the answer. It hands the pool finished
// connections and failures, and never sees a request: the pool keeps the waiters,
// the open connections and the per-origin limit.
// Ownership: HTTP thread only. Owned by the pool's Origin; deleted after the loop's
// turn (never from inside one of its own calls). A QUIC connection belongs to the pool
// from the start of its handshake (so that the pool hears its events); the attempt
// only points at it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "connect/connector.hpp"
#include "connect/proxy_hop.hpp"
#include "connection/connection.hpp"
#include "pool/connection_factory.hpp"
#include "pool/connection_waiter.hpp"
#include "pool/http3_attempt.hpp"
#include "pool/pool_services.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

/// Where every connection of an origin goes, and which protocols it may speak.
struct OriginRoute {
  Url url;  // the first waiter's, for the host, the port and the Alt-Svc key
  VersionPolicy policy = VersionPolicy::automatic;
  std::optional<ProxyHop> proxy;  // every connection of the origin goes through it
};

class OriginConnector final : private Http3Attempt::Reports {
 public:
  struct Events {
    std::function<std::uint64_t()> next_conn_id;
    /// A QUIC connection starts its handshake: the pool holds it from now on, and
    /// tells handshake_completed() or connection_closed() what becomes of it.
    std::function<void(std::unique_ptr<Connection>)> handshaking;
    /// A TCP connect ended: the connection (HTTP/1.1 or HTTP/2), or why there is none.
    std::function<void(Result<std::unique_ptr<Connection>>)> connected;
    /// The HTTP/3 attempt is over without a connection. `abandoned` is the connection
    /// it was still handshaking (its early requests go back to waiting), which the pool
    /// drops; null if none. The origin's h3 is marked broken unless http3_only.
    std::function<void(Error, Connection* abandoned)> http3_failed;
  };

  OriginConnector(const PoolServices& services, ConnectionFactory& factory, ConnectionOwner& owner,
                  Events events);
  ~OriginConnector();
  OriginConnector(const OriginConnector&) = delete;
  OriginConnector& operator=(const OriginConnector&) = delete;

  const OriginRoute& route() const noexcept { return route_; }
  /// A new route; only while nothing is on the way (the pool's Origin::idle()).
  void set_route(OriginRoute route) { route_ = std::move(route); }

  enum class Opened { nothing, quic, tcp };
  /// Starts one more connection for `first` (whose timeouts it takes): a QUIC attempt
  /// when the origin should be tried over HTTP/3 and none runs, else a TCP connect.
  /// Starts nothing when a QUIC attempt runs (it serves everyone waiting), when
  /// http3_only has no attempt to make, or when `one_may_serve_all` and a TCP connect
  /// is already on the way (it may turn out to multiplex). `seen_version`: what the
  /// origin's last connection spoke. A QUIC attempt may have ended (and reported)
  /// before this returns.
  Opened open_for(const ConnectionWaiter& first, std::optional<HttpVersion> seen_version,
                  bool one_may_serve_all);

  std::size_t tcp_connects() const noexcept { return tcp_.size(); }
  bool quic_attempting() const noexcept { return h3_ != nullptr; }
  bool busy() const noexcept { return !tcp_.empty() || h3_; }

  /// `conn` completed its QUIC handshake: true if it was the attempt's, which is then
  /// over. (Early data flows before that: an early connection is still handshaking.)
  bool handshake_completed(Connection& conn);
  /// `conn` closed: true if it was the attempt's, which then tries the next address
  /// or fails (Events::http3_failed).
  bool connection_closed(Connection& conn);
  /// Cancels every connect and the attempt: nothing reports after this.
  void stop();

 private:
  std::chrono::milliseconds h3_handshake_timeout(const ConnectionWaiter& first) const;
  void open_quic(const ConnectionWaiter& first, Http3Target target);
  void open_tcp(const ConnectionWaiter& first);
  void on_tcp_done(Connector* connector, std::uint64_t id,
                   Result<std::unique_ptr<Transport>> transport);
  // Http3Attempt::Reports: the pool's events, and the attempt's end.
  std::uint64_t next_conn_id() override { return events_.next_conn_id(); }
  void adopt(std::unique_ptr<Connection> conn) override { events_.handshaking(std::move(conn)); }
  void attempt_failed(Error error) override;
  void end_quic_attempt();

  const PoolServices& services_;
  ConnectionFactory& factory_;
  ConnectionOwner& owner_;  // hears the events of the connections it makes
  Events events_;
  OriginRoute route_;
  std::vector<std::unique_ptr<Connector>> tcp_;
  std::unique_ptr<Http3Attempt> h3_;
};

}  // namespace sluice
