#pragma once
// ConnectionPool: every connection of a Client, grouped by origin; hands idle
// connections to waiting requests (ConnectionWaiter), opens new ones up to the per-origin limit
// (through its ConnectionFactory, which knows the protocols: the pool sees only
// connection/connection.hpp), runs an origin's HTTP/3 attempt (Http3Attempt) and
// falls back to TCP when it fails, and closes connections that stayed idle past the
// pool's idle timeout.
// Ownership: HTTP thread only; owned by the Client's core, which it knows only through
// PoolServices.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "connect/connector.hpp"
#include "connection/connection.hpp"
#include "core/event_loop.hpp"
#include "pool/connection_factory.hpp"
#include "pool/connection_waiter.hpp"
#include "pool/http3_attempt.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

class ConnectionPool final : public ConnectionOwner {
 public:
  explicit ConnectionPool(PoolServices services);
  ~ConnectionPool() override;

  /// Queues `waiter` for a connection to its URL's origin.
  void submit(ConnectionWaiter& waiter);
  /// Takes a waiter out of the queue (cancelled or timed out).
  void withdraw(ConnectionWaiter& waiter);
  /// Closes everything (Client shutdown).
  void close_all();

  std::size_t connection_count() const;
  std::size_t release_idle_scratch();
  /// Empty scratch every open connection keeps for reuse (stats).
  std::size_t scratch_bytes() const;

  void on_connection_available(Connection& conn) override;
  void on_connection_closed(Connection& conn) override;

 private:
  struct Origin {
    std::vector<std::unique_ptr<Connection>> conns;
    std::vector<std::unique_ptr<Connector>> connectors;
    std::deque<ConnectionWaiter*> waiting;
    VersionPolicy policy = VersionPolicy::automatic;
    bool https = false;
    Url url;  // the first waiter's, for the origin's host, port and Alt-Svc key
    std::optional<HttpVersion> seen_version;  // what the last connection spoke
    std::unique_ptr<Http3Attempt> h3;         // a QUIC attempt in progress
    std::optional<ProxyHop> proxy;            // every connection of the origin goes through it
  };
  bool may_multiplex(const Origin& origin) const;
  /// Connections that count toward max_connections_per_origin: all but those
  /// draining after a GOAWAY, which take no new request and may take long to end
  /// (at most max_connections_per_origin of them are open at once beside it).
  static std::size_t counted_connections(const Origin& origin);
  void forget_if_unused(const std::string& key);

  // HTTP/3 (connection_pool_h3.cpp): the pool's side of an Http3Attempt.
  std::optional<Http3Target> http3_target_for(const Origin& origin);
  void open_h3(const std::string& key, Origin& origin, Http3Target target);
  void h3_failed(const std::string& key, Error error);
  void h3_ready(Origin& origin);
  void end_h3_attempt(Origin& origin);
  std::chrono::milliseconds h3_handshake_timeout(const Origin& origin) const;

  void dispatch(const std::string& key);
  Connection* idle_connection(const std::string& key);
  void open_connection(const std::string& key, ConnectionWaiter& first);
  void on_connected(const std::string& key, Connector* connector, std::uint64_t id,
                    Result<std::unique_ptr<Transport>> transport);
  void arm_idle_close(Connection& conn);
  Origin* origin_of(const Connection& conn, std::string* key = nullptr);

  PoolServices services_;
  ConnectionFactory factory_;
  std::unordered_map<std::string, Origin> origins_;
  std::unordered_map<const Connection*, std::string> conn_origin_;
  std::unordered_map<const Connection*, EventLoop::TimerId> idle_timers_;
  std::uint64_t next_conn_id_ = 1;
  bool closing_ = false;
};

}  // namespace sluice
