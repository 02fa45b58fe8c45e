#pragma once
// ConnectionPool: every connection of a Client, grouped by origin; hands idle
// connections to waiting requests (ConnectionWaiter), asks each origin's
// OriginConnector for new ones up to the per-origin limit (it chooses QUIC or TCP and
// falls back; the pool sees only connection/connection.hpp), and closes connections
// that stayed idle past the pool's idle timeout.
// Ownership: HTTP thread only; owned by the Client's core, which it knows only through
// PoolServices.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "connection/connection.hpp"
#include "core/after_turn_bin.hpp"
#include "core/event_loop.hpp"
#include "pool/connection_factory.hpp"
#include "pool/connection_waiter.hpp"
#include "pool/origin_connector.hpp"
#include "pool/waiter_queue.hpp"
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
    WaiterQueue waiting;
    std::optional<HttpVersion> seen_version;     // what the last connection spoke
    std::unique_ptr<OriginConnector> connector;  // what is on the way to a connection
    /// Learned from a GOAWAY that refused requests a connection had started: the
    /// most requests the server takes on one connection. Kept while the origin is.
    std::optional<std::size_t> request_limit;
    /// No connection open and none on the way: the next waiter's route (its URL,
    /// version policy and proxy) may replace the last one.
    bool idle() const noexcept { return conns.empty() && !connector->busy(); }
    /// Idle, and nobody waits: the origin can go.
    bool unused() const noexcept { return idle() && waiting.empty(); }
  };
  Origin& origin_for(const std::string& key);
  static bool may_multiplex(const Origin& origin);
  /// Connections that count toward max_connections_per_origin: all but those
  /// draining after a GOAWAY, which take no new request and may take long to end
  /// (at most max_connections_per_origin of them are open at once beside it).
  static std::size_t counted_connections(const Origin& origin);
  /// Reads what draining connections say about the server's request limit.
  static void learn_request_limit(Origin& origin);
  /// Whether `conn` may take one more request under the origin's request limit.
  bool under_request_limit(const Origin& origin, const Connection& conn) const;
  void forget_if_unused(const std::string& key);

  // What the origin's connector reports.
  void on_handshaking(const std::string& key, std::unique_ptr<Connection> conn);
  void on_connected(const std::string& key, Result<std::unique_ptr<Connection>> conn);
  void on_http3_failed(const std::string& key, const Error& error, Connection* abandoned);

  void dispatch(const std::string& key);
  Connection* idle_connection(const std::string& key);
  void arm_idle_close(Connection& conn);
  /// Takes `conn` out of its origin (deleted after the turn) and returns the
  /// origin's key; nullopt if it was not pooled.
  std::optional<std::string> drop(Connection& conn);
  Origin* origin_of(const Connection& conn, std::string* key = nullptr);

  PoolServices services_;
  ConnectionFactory factory_;
  std::unordered_map<std::string, Origin> origins_;
  std::unordered_map<const Connection*, std::string> conn_origin_;
  std::unordered_map<const Connection*, EventLoop::TimerId> idle_timers_;
  std::unordered_map<const Connection*, std::size_t> requests_sent_;  // requests attached
  std::uint64_t next_conn_id_ = 1;
  bool closing_ = false;
  // Deleted after the turn in which they left: the code on the stack may be theirs.
  AfterTurnBin<Connection> dropped_connections_{services_.loop};
  AfterTurnBin<OriginConnector> forgotten_connectors_{services_.loop};
};

}  // namespace sluice
