#include "pool/connection_pool.hpp"

#include <algorithm>
#include <utility>

namespace sluice {

namespace {
// Requests share connections only when they accept the same protocols: automatic and
// http3 take h3 (when tried), h2 and http/1.1 over TLS; http2 takes h2 and http/1.1
// by ALPN, never h3. Over plain http:// only prior knowledge speaks h2 (h2c by
// Upgrade is not offered).
std::string protocols_key(const Url& url, VersionPolicy policy) {
  switch (policy) {
    case VersionPolicy::http1_only: return url.origin() + " h1";
    case VersionPolicy::http2_prior_knowledge: return url.origin() + " h2-prior";
    case VersionPolicy::http3_only: return url.origin() + " h3-only";
    case VersionPolicy::http2: return url.origin() + (url.is_https() ? " alpn-tcp" : " h1");
    case VersionPolicy::automatic:
    case VersionPolicy::http3: break;
  }
  return url.origin() + (url.is_https() ? " alpn" : " h1");
}

// ... and only when they go through the same proxy (or none).
std::string origin_key(const ConnectionWaiter& waiter) {
  std::string key = protocols_key(waiter.url(), waiter.version_policy());
  if (const auto& proxy = waiter.proxy_route()) key += " via " + proxy->key();
  return key;
}
}  // namespace

ConnectionPool::ConnectionPool(PoolServices services)
    : services_(std::move(services)), factory_(services_) {}

ConnectionPool::~ConnectionPool() = default;

void ConnectionPool::submit(ConnectionWaiter& waiter) {
  const std::string key = origin_key(waiter);
  auto [found, created] = origins_.try_emplace(key);
  Origin& origin = found->second;
  if (created || (origin.conns.empty() && origin.connectors.empty() && !origin.h3)) {
    origin.policy = waiter.version_policy();
    origin.https = waiter.url().is_https();
    origin.url = waiter.url();
    origin.proxy = waiter.proxy_route();
  }
  origin.waiting.push_back(&waiter);
  dispatch(key);
}

void ConnectionPool::withdraw(ConnectionWaiter& waiter) {
  const std::string key = origin_key(waiter);
  auto found = origins_.find(key);
  if (found == origins_.end()) return;
  auto& waiting = found->second.waiting;
  waiting.erase(std::remove(waiting.begin(), waiting.end(), &waiter), waiting.end());
  forget_if_unused(key);
}

// A crawler meets millions of origins: an origin with nothing left goes.
void ConnectionPool::forget_if_unused(const std::string& key) {
  auto found = origins_.find(key);
  if (found == origins_.end()) return;
  const Origin& origin = found->second;
  if (origin.conns.empty() && origin.connectors.empty() && origin.waiting.empty() && !origin.h3) {
    origins_.erase(found);
  }
}

void ConnectionPool::dispatch(const std::string& key) {
  if (closing_ || origins_.count(key) == 0) return;
  // attach() may close a connection (and so edit the list): look again after each.
  // attach() may also end the origin (a waiter that fails at once was its last):
  // every step looks it up again instead of keeping a reference.
  while (Connection* conn = idle_connection(key)) {
    Origin& origin = origins_.find(key)->second;
    ConnectionWaiter* waiter = origin.waiting.front();
    origin.waiting.pop_front();
    if (auto timer = idle_timers_.find(conn); timer != idle_timers_.end()) {
      services_.loop.cancel_timer(timer->second);
      idle_timers_.erase(timer);
    }
    waiter->attach(*conn);
  }
  // Open connections for waiters no connection can take, up to the origin's limit.
  auto found = origins_.find(key);
  if (found == origins_.end()) return;
  Origin& origin = found->second;
  const std::size_t limit = std::max<std::size_t>(1, services_.options.max_connections_per_origin);
  // A connection draining after GOAWAY leaves its slot to a new one, but at most
  // `limit` of them stay open beside the limit: a server that sends GOAWAY after
  // every request must not make us hold one socket per waiter in flight.
  while (origin.waiting.size() > origin.connectors.size() &&
         counted_connections(origin) + origin.connectors.size() < limit &&
         origin.conns.size() + origin.connectors.size() < 2 * limit) {
    // A QUIC handshake in progress serves everyone waiting, or hands them to TCP.
    if (origin.h3) break;
    if (auto target = http3_target_for(origin)) {
      open_h3(key, origin, std::move(*target));
      break;
    }
    if (origin.policy == VersionPolicy::http3_only) break;  // never TCP
    // One connection that may turn out to multiplex (h2) serves everyone waiting:
    // open a second only once the first said HTTP/1.1, or is full.
    if (may_multiplex(origin) && !origin.connectors.empty()) break;
    open_connection(key, *origin.waiting[origin.connectors.size()]);
  }
}

Connection* ConnectionPool::idle_connection(const std::string& key) {
  auto found = origins_.find(key);
  if (found == origins_.end() || found->second.waiting.empty()) return nullptr;
  const ConnectionWaiter& next = *found->second.waiting.front();
  for (auto& conn : found->second.conns) {
    if (conn->is_closed() || conn->available_streams() == 0) continue;
    // 0-RTT takes only what is safe to replay; the rest waits for the handshake.
    if (conn->early() && !next.safe_for_early_data()) continue;
    return conn.get();
  }
  return nullptr;
}

void ConnectionPool::open_connection(const std::string& key, ConnectionWaiter& first) {
  const std::uint64_t id = next_conn_id_++;
  auto& connectors = origins_[key].connectors;
  connectors.push_back(factory_.connect_tcp(first.url(), first.version_policy(),
                                            first.proxy_route(), first.tls_timeout(), id, nullptr));
  // The connector reports through `key` and its own address; the pool outlives it.
  Connector* raw = connectors.back().get();
  raw->set_callback([this, key, raw, id](Result<std::unique_ptr<Transport>> transport) {
    on_connected(key, raw, id, std::move(transport));
  });
}

void ConnectionPool::on_connected(const std::string& key, Connector* connector, std::uint64_t id,
                                  Result<std::unique_ptr<Transport>> transport) {
  Origin& origin = origins_[key];
  ConnectTiming timing = connector->timing();
  auto& connectors = origin.connectors;
  auto it = std::find_if(connectors.begin(), connectors.end(),
                         [connector](const auto& c) { return c.get() == connector; });
  if (it != connectors.end()) {
    // Deleting the connector from inside its own callback: defer.
    auto doomed = std::shared_ptr<Connector>(std::move(*it));
    connectors.erase(it);
    services_.loop.post([doomed] {});
  }
  if (!transport) {
    // With nothing else on the way, everyone waiting for this origin gets the error.
    const bool alone = origin.conns.empty() && origin.connectors.empty();
    std::deque<ConnectionWaiter*> failed;
    if (alone) {
      failed.swap(origin.waiting);
    } else if (!origin.waiting.empty()) {
      failed.push_back(origin.waiting.front());
      origin.waiting.pop_front();
    }
    for (ConnectionWaiter* waiter : failed) waiter->fail(transport.error());
    forget_if_unused(key);
    return;
  }
  std::unique_ptr<Connection> conn =
      factory_.over_tcp(std::move(*transport), origin.policy, *this, id);
  conn->set_connect_timing(std::move(timing));
  origin.seen_version = conn->version();
  if (conn->is_closed()) {  // could not even be registered with epoll
    for (ConnectionWaiter* waiter : std::exchange(origin.waiting, {})) {
      waiter->fail(
          Error(ErrorCategory::io, "cannot watch the connection to " + origin.url.origin()));
    }
    forget_if_unused(key);
    return;
  }
  conn_origin_[conn.get()] = key;
  Connection* added = conn.get();
  origin.conns.push_back(std::move(conn));
  dispatch(key);
  // The dispatch may have ended the connection and even the origin: look again.
  if (conn_origin_.count(added) != 0 && added->idle() && !added->is_closed())
    arm_idle_close(*added);
}

std::size_t ConnectionPool::counted_connections(const Origin& origin) {
  std::size_t counted = 0;
  for (const auto& conn : origin.conns) {
    if (!conn->draining()) ++counted;
  }
  return counted;
}

bool ConnectionPool::may_multiplex(const Origin& origin) const {
  if (origin.policy == VersionPolicy::http2_prior_knowledge) return true;
  if (origin.policy == VersionPolicy::http3_only) return true;
  if (origin.policy == VersionPolicy::http1_only || !origin.https) return false;
  if (!origin.seen_version) return true;
  return *origin.seen_version != HttpVersion::http1_1;
}

ConnectionPool::Origin* ConnectionPool::origin_of(const Connection& conn, std::string* key) {
  auto found = conn_origin_.find(&conn);
  if (found == conn_origin_.end()) return nullptr;
  if (key != nullptr) *key = found->second;
  return &origins_[found->second];
}

void ConnectionPool::on_connection_available(Connection& conn) {
  std::string key;
  Origin* origin = origin_of(conn, &key);
  if (origin == nullptr) return;
  // Early data flows before the handshake completed: the attempt is not over yet.
  if (origin->h3 && origin->h3->handshaking(conn) && !conn.early()) h3_ready(*origin);
  dispatch(key);
  if (conn.idle() && !conn.is_closed()) arm_idle_close(conn);
}

void ConnectionPool::arm_idle_close(Connection& conn) {
  if (idle_timers_.count(&conn) != 0) return;
  const auto idle = services_.options.pool_idle_timeout;
  const Connection* target = &conn;
  idle_timers_[target] = services_.loop.add_timer(services_.loop.now() + idle, [this, target] {
    idle_timers_.erase(target);
    std::string key;
    Origin* origin = origin_of(*target, &key);
    if (origin == nullptr) return;
    for (auto& idle_conn : origin->conns) {
      if (idle_conn.get() != target || !idle_conn->idle()) continue;
      // Requests waiting for this origin (a connection still in its handshake has no
      // exchanges yet, so it looks idle) would only open another: check again later.
      if (!origin->waiting.empty()) {
        arm_idle_close(*idle_conn);
        return;
      }
      idle_conn->close(Error(ErrorCategory::cancelled, "idle connection closed by the pool"));
      on_connection_closed(*idle_conn);
      return;
    }
  });
}

void ConnectionPool::on_connection_closed(Connection& conn) {
  std::string key;
  Origin* origin = origin_of(conn, &key);
  if (origin == nullptr) return;
  if (auto timer = idle_timers_.find(&conn); timer != idle_timers_.end()) {
    services_.loop.cancel_timer(timer->second);
    idle_timers_.erase(timer);
  }
  conn_origin_.erase(&conn);
  // A QUIC attempt that ended before its handshake: the next address, or give up.
  std::optional<Error> h3_error;
  if (origin->h3 && origin->h3->handshaking(conn)) {
    std::optional<Error> reason = conn.close_reason();
    h3_error = reason ? std::move(*reason)
                      : Error(ErrorCategory::protocol, "HTTP/3: the connection closed");
  }
  auto& conns = origin->conns;
  auto it =
      std::find_if(conns.begin(), conns.end(), [&conn](const auto& c) { return c.get() == &conn; });
  if (it != conns.end()) {
    // Called from inside the connection's own event handling: delete it later.
    auto doomed = std::shared_ptr<Connection>(std::move(*it));
    conns.erase(it);
    services_.loop.post([doomed] {});
  }
  if (h3_error) {
    origin->h3->connection_closed(std::move(*h3_error));
    return;
  }
  dispatch(key);
  forget_if_unused(key);
}

void ConnectionPool::close_all() {
  closing_ = true;
  for (auto& [key, origin] : origins_) {
    end_h3_attempt(origin);
    origin.connectors.clear();
    origin.waiting.clear();
    for (auto& conn : origin.conns) {
      conn->close(Error(ErrorCategory::cancelled, "the client is shutting down"));
    }
    origin.conns.clear();
  }
  conn_origin_.clear();
  for (auto& [conn, timer] : idle_timers_) services_.loop.cancel_timer(timer);
  idle_timers_.clear();
}

std::size_t ConnectionPool::connection_count() const {
  std::size_t count = 0;
  for (const auto& [key, origin] : origins_) count += origin.conns.size();
  return count;
}

std::size_t ConnectionPool::scratch_bytes() const {
  std::size_t kept = 0;
  for (const auto& [key, origin] : origins_) {
    for (const auto& conn : origin.conns) kept += conn->scratch_bytes();
  }
  return kept;
}

std::size_t ConnectionPool::release_idle_scratch() {
  std::size_t freed = 0;
  for (auto& [key, origin] : origins_) {
    for (auto& conn : origin.conns) {
      if (conn->idle()) freed += conn->release_scratch(services_.loop.now());
    }
  }
  return freed;
}

}  // namespace sluice
