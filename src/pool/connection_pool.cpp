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
    case VersionPolicy::http1_0: return url.origin() + " h1.0";
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

ConnectionPool::Origin& ConnectionPool::origin_for(const std::string& key) {
  auto [found, created] = origins_.try_emplace(key);
  Origin& origin = found->second;
  if (created) {
    // The connector reports through `key`; the pool outlives it.
    OriginConnector::Events events{
        [this] { return next_conn_id_++; },
        [this, key](std::unique_ptr<Connection> conn) { on_handshaking(key, std::move(conn)); },
        [this, key](Result<std::unique_ptr<Connection>> conn) {
          on_connected(key, std::move(conn));
        },
        [this, key](Error error, Connection* abandoned) { on_http3_failed(key, error, abandoned); },
    };
    origin.connector =
        std::make_unique<OriginConnector>(services_, factory_, *this, std::move(events));
  }
  return origin;
}

void ConnectionPool::submit(ConnectionWaiter& waiter) {
  const std::string key = origin_key(waiter);
  Origin& origin = origin_for(key);
  if (origin.idle()) {
    origin.connector->set_route({waiter.url(), waiter.version_policy(), waiter.proxy_route()});
  }
  origin.waiting.push(waiter);
  dispatch(key);
}

void ConnectionPool::withdraw(ConnectionWaiter& waiter) {
  const std::string key = origin_key(waiter);
  auto found = origins_.find(key);
  if (found == origins_.end()) return;
  found->second.waiting.remove(waiter);
  forget_if_unused(key);
}

// A crawler meets millions of origins: an origin with nothing left goes. Its connector
// may be the caller (a failed connect is its last report): it goes after the turn.
void ConnectionPool::forget_if_unused(const std::string& key) {
  auto found = origins_.find(key);
  if (found == origins_.end() || !found->second.unused()) return;
  forgotten_connectors_.retire(std::move(found->second.connector));
  origins_.erase(found);
}

void ConnectionPool::dispatch(const std::string& key) {
  if (closing_ || origins_.count(key) == 0) return;
  // A request the server refused comes back here from inside the connection's GOAWAY
  // handling: what that GOAWAY taught applies before the request goes again.
  learn_request_limit(origins_.find(key)->second);
  // attach() may close a connection (and so edit the list): look again after each.
  // attach() may also end the origin (a waiter that fails at once was its last):
  // every step looks it up again instead of keeping a reference.
  while (Connection* conn = idle_connection(key)) {
    Origin& origin = origins_.find(key)->second;
    ConnectionWaiter& waiter = origin.waiting.take_front();
    if (auto timer = idle_timers_.find(conn); timer != idle_timers_.end()) {
      services_.loop.cancel_timer(timer->second);
      idle_timers_.erase(timer);
    }
    ++requests_sent_[conn];
    waiter.attach(*conn);
  }
  // Open connections for waiters no connection can take, up to the origin's limit.
  auto found = origins_.find(key);
  if (found == origins_.end()) return;
  Origin& origin = found->second;
  const std::size_t limit =
      std::max<std::size_t>(1, services_.options.pool.max_connections_per_origin);
  // A connection draining after GOAWAY leaves its slot to a new one, but at most
  // `limit` of them stay open beside the limit: a server that sends GOAWAY after
  // every request must not make us hold one socket per waiter in flight.
  OriginConnector& connector = *origin.connector;
  // One connection that may turn out to multiplex (h2, h3) serves everyone waiting:
  // another opens only once the first said HTTP/1.1, or is full. Under a learned
  // request limit each serves that many. A QUIC attempt serves them all, and may have
  // failed already and ended the origin: stop.
  const bool multiplex = may_multiplex(origin);
  const std::size_t per_connect = multiplex && origin.request_limit ? *origin.request_limit : 1;
  while (origin.waiting.size() > connector.tcp_connects() * per_connect &&
         counted_connections(origin) + connector.tcp_connects() < limit &&
         origin.conns.size() + connector.tcp_connects() < 2 * limit) {
    const auto opened = connector.open_for(origin.waiting[connector.tcp_connects()],
                                           origin.seen_version, multiplex && !origin.request_limit);
    if (opened != OriginConnector::Opened::tcp) break;
  }
}

Connection* ConnectionPool::idle_connection(const std::string& key) {
  auto found = origins_.find(key);
  if (found == origins_.end() || found->second.waiting.empty()) return nullptr;
  const ConnectionWaiter& next = found->second.waiting.front();
  for (auto& conn : found->second.conns) {
    if (conn->is_closed() || conn->available_streams() == 0) continue;
    if (!under_request_limit(found->second, *conn)) continue;
    // 0-RTT takes only what is safe to replay; the rest waits for the handshake.
    if (conn->early() && !next.safe_for_early_data()) continue;
    return conn.get();
  }
  return nullptr;
}

void ConnectionPool::on_handshaking(const std::string& key, std::unique_ptr<Connection> conn) {
  conn_origin_[conn.get()] = key;
  origins_[key].conns.push_back(std::move(conn));
}

void ConnectionPool::on_connected(const std::string& key,
                                  Result<std::unique_ptr<Connection>> connected) {
  Origin& origin = origins_[key];
  if (!connected) {
    // With nothing else on the way, everyone waiting for this origin gets the error.
    const bool alone = origin.conns.empty() && origin.connector->tcp_connects() == 0;
    std::deque<ConnectionWaiter*> failed;
    if (alone) {
      failed = origin.waiting.take_all();
    } else if (!origin.waiting.empty()) {
      failed.push_back(&origin.waiting.take_front());
    }
    for (ConnectionWaiter* waiter : failed) waiter->fail(connected.error());
    forget_if_unused(key);
    return;
  }
  std::unique_ptr<Connection> conn = std::move(*connected);
  origin.seen_version = conn->version();
  if (conn->is_closed()) {  // could not even be registered with epoll
    const std::string where = origin.connector->route().url.origin();
    for (ConnectionWaiter* waiter : origin.waiting.take_all()) {
      waiter->fail(Error(ErrorCategory::io, "cannot watch the connection to " + where));
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

// The QUIC attempt failed. Its connector fell back (the origin's h3 is broken for a
// while, so the dispatch opens TCP) unless the origin is HTTP/3 only: then, with no
// other connection, everyone waiting gets the error.
void ConnectionPool::on_http3_failed(const std::string& key, const Error& error,
                                     Connection* abandoned) {
  if (abandoned != nullptr) drop(*abandoned);
  Origin& origin = origins_[key];
  if (origin.connector->route().policy != VersionPolicy::http3_only) {
    dispatch(key);
  } else if (origin.conns.empty()) {
    for (ConnectionWaiter* waiter : origin.waiting.take_all()) waiter->fail(error);
  }
  forget_if_unused(key);
}

std::size_t ConnectionPool::counted_connections(const Origin& origin) {
  std::size_t counted = 0;
  for (const auto& conn : origin.conns) {
    if (!conn->draining()) ++counted;
  }
  return counted;
}

void ConnectionPool::learn_request_limit(Origin& origin) {
  for (const auto& conn : origin.conns) {
    const std::optional<std::size_t> served = conn->served_before_refusal();
    if (!served) continue;
    // A server that processed none still gets one request per connection: the
    // refusals themselves are bounded (FetchHops' resends).
    const std::size_t learned = std::max<std::size_t>(1, *served);
    if (!origin.request_limit || learned < *origin.request_limit) origin.request_limit = learned;
  }
}

bool ConnectionPool::under_request_limit(const Origin& origin, const Connection& conn) const {
  if (!origin.request_limit) return true;
  const auto sent = requests_sent_.find(&conn);
  return sent == requests_sent_.end() || sent->second < *origin.request_limit;
}

bool ConnectionPool::may_multiplex(const Origin& origin) {
  const OriginRoute& route = origin.connector->route();
  if (route.policy == VersionPolicy::http2_prior_knowledge) return true;
  if (route.policy == VersionPolicy::http3_only) return true;
  if (route.policy == VersionPolicy::http1_only || route.policy == VersionPolicy::http1_0 ||
      !route.url.is_https()) {
    return false;
  }
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
  if (origin->connector->handshake_completed(conn)) origin->seen_version = HttpVersion::http3;
  dispatch(key);
  if (conn.idle() && !conn.is_closed()) arm_idle_close(conn);
}

void ConnectionPool::arm_idle_close(Connection& conn) {
  if (idle_timers_.count(&conn) != 0) return;
  const auto idle = services_.options.pool.idle_timeout;
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

std::optional<std::string> ConnectionPool::drop(Connection& conn) {
  auto found = conn_origin_.find(&conn);
  if (found == conn_origin_.end()) return std::nullopt;
  std::string key = std::move(found->second);
  conn_origin_.erase(found);
  requests_sent_.erase(&conn);
  Origin& origin = origins_[key];
  if (auto timer = idle_timers_.find(&conn); timer != idle_timers_.end()) {
    services_.loop.cancel_timer(timer->second);
    idle_timers_.erase(timer);
  }
  auto& conns = origin.conns;
  auto it =
      std::find_if(conns.begin(), conns.end(), [&conn](const auto& c) { return c.get() == &conn; });
  if (it != conns.end()) {
    // Called from inside the connection's own event handling: delete it later.
    dropped_connections_.retire(std::move(*it));
    conns.erase(it);
  }
  return key;
}

void ConnectionPool::on_connection_closed(Connection& conn) {
  const std::optional<std::string> key = drop(conn);
  if (!key) return;
  // A QUIC attempt that ended before its handshake tries the next address, or fails.
  if (origins_[*key].connector->connection_closed(conn)) return;
  dispatch(*key);
  forget_if_unused(*key);
}

void ConnectionPool::close_all() {
  closing_ = true;
  for (auto& [key, origin] : origins_) {
    origin.connector->stop();
    origin.waiting.release_all();
    for (auto& conn : origin.conns) {
      conn->close(Error(ErrorCategory::cancelled, "the client is shutting down"));
    }
    origin.conns.clear();
  }
  conn_origin_.clear();
  requests_sent_.clear();
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
