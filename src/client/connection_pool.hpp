#pragma once
// ConnectionPool: every connection of a Client, grouped by origin; hands idle
// connections to waiting transfers, opens new ones up to the per-origin limit, and
// closes connections that stayed idle past the pool's idle timeout.
// Ownership: HTTP thread only; owned by ClientCore.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/connector.hpp"
#include "io/connection.hpp"
#include "io/event_loop.hpp"
#include "sluice/request.hpp"

namespace sluice {

class ClientCore;
class Transfer;

class ConnectionPool final : public ConnectionOwner {
 public:
  explicit ConnectionPool(ClientCore& core);
  ~ConnectionPool() override;

  /// Queues `transfer` for a connection to its URL's origin.
  void submit(Transfer& transfer);
  /// Takes a waiting transfer out of the queue (cancelled or timed out).
  void withdraw(Transfer& transfer);
  /// Closes everything (Client shutdown).
  void close_all();

  std::size_t connection_count() const;
  std::size_t release_idle_scratch();

  void on_connection_available(Connection& conn) override;
  void on_connection_closed(Connection& conn) override;

 private:
  struct Origin {
    std::vector<std::unique_ptr<Connection>> conns;
    std::vector<std::unique_ptr<Connector>> connectors;
    std::deque<Transfer*> waiting;
    VersionPolicy policy = VersionPolicy::automatic;
    bool https = false;
    std::optional<HttpVersion> seen_version;  // what the last connection spoke
  };
  bool may_multiplex(const Origin& origin) const;
  void forget_if_unused(const std::string& key);

  void dispatch(const std::string& key);
  Connection* idle_connection(const std::string& key);
  void open_connection(const std::string& key, Transfer& first);
  void on_connected(const std::string& key, Connector* connector, std::uint64_t id,
                    Result<std::unique_ptr<Transport>> transport);
  void arm_idle_close(Connection& conn);
  Origin* origin_of(const Connection& conn, std::string* key = nullptr);

  ClientCore& core_;
  std::unordered_map<std::string, Origin> origins_;
  std::unordered_map<const Connection*, std::string> conn_origin_;
  std::unordered_map<const Connection*, EventLoop::TimerId> idle_timers_;
  std::uint64_t next_conn_id_ = 1;
  bool closing_ = false;
};

}  // namespace sluice
