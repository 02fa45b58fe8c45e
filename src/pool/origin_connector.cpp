#include "pool/origin_connector.hpp"

#include <algorithm>
#include <utility>

namespace sluice {

OriginConnector::OriginConnector(const PoolServices& services, ConnectionFactory& factory,
                                 ConnectionOwner& owner, Events events)
    : services_(services), factory_(factory), owner_(owner), events_(std::move(events)) {}

OriginConnector::~OriginConnector() {
  // Not end_quic_attempt(): the pool deletes this after the turn, or at its own end,
  // when the loop may take no more tasks.
  if (h3_) h3_->stop();
}

OriginConnector::Opened OriginConnector::open_for(const ConnectionWaiter& first,
                                                  std::optional<HttpVersion> seen_version,
                                                  bool one_may_serve_all) {
  // A QUIC handshake in progress serves everyone waiting, or hands them to TCP.
  if (h3_) return Opened::nothing;
  const Http3Choice choice{services_.options, services_.network, services_.alt_svc,
                           services_.trace};
  if (auto target = http3_target(choice, {route_.url, route_.policy, route_.proxy, seen_version},
                                 services_.loop.now())) {
    open_quic(first, std::move(*target));
    return Opened::quic;
  }
  if (route_.policy == VersionPolicy::http3_only) return Opened::nothing;  // never TCP
  if (one_may_serve_all && !tcp_.empty()) return Opened::nothing;
  open_tcp(first);
  return Opened::tcp;
}

void OriginConnector::open_tcp(const ConnectionWaiter& first) {
  const std::uint64_t id = events_.next_conn_id();
  tcp_.push_back(factory_.connect_tcp(first.url(), first.version_policy(), first.proxy_route(),
                                      first.tls_timeout(), id, nullptr));
  // The connector reports with its own address; this object outlives it.
  Connector* raw = tcp_.back().get();
  raw->set_callback([this, raw, id](Result<std::unique_ptr<Transport>> transport) {
    on_tcp_done(raw, id, std::move(transport));
  });
}

void OriginConnector::on_tcp_done(Connector* connector, std::uint64_t id,
                                  Result<std::unique_ptr<Transport>> transport) {
  ConnectTiming timing = connector->timing();
  auto it = std::find_if(tcp_.begin(), tcp_.end(),
                         [connector](const auto& c) { return c.get() == connector; });
  if (it != tcp_.end()) {
    // Deleting the connector from inside its own callback: defer.
    auto doomed = std::shared_ptr<Connector>(std::move(*it));
    tcp_.erase(it);
    services_.loop.post([doomed] {});
  }
  if (!transport) {
    events_.connected(transport.error());
    return;
  }
  std::unique_ptr<Connection> conn =
      factory_.over_tcp(std::move(*transport), route_.policy, owner_, id);
  conn->set_connect_timing(std::move(timing));
  events_.connected(std::move(conn));
}

std::chrono::milliseconds OriginConnector::h3_handshake_timeout(
    const ConnectionWaiter& first) const {
  // Only an attempt that cannot fall back waits as long as a TCP connect would.
  if (route_.policy == VersionPolicy::http3_only) {
    const auto connect = first.connect_timeout();
    return connect.count() > 0 ? connect : std::chrono::milliseconds(30'000);
  }
  return services_.options.pool.http3_fallback_after;
}

void OriginConnector::open_quic(const ConnectionWaiter& first, Http3Target target) {
  Http3Attempt::Settings settings{route_.url.origin(), route_.url.host, h3_handshake_timeout(first),
                                  std::nullopt};
  if (route_.policy != VersionPolicy::http3_only) {
    settings.fallback_after = services_.options.pool.http3_fallback_after;
  }
  h3_ = std::make_unique<Http3Attempt>(
      Http3Attempt::Services{services_.loop, services_.resolver, factory_, owner_, services_.trace},
      static_cast<Http3Attempt::Reports&>(*this), std::move(target), std::move(settings));
  h3_->start();
}

bool OriginConnector::handshake_completed(Connection& conn) {
  if (!h3_ || !h3_->handshaking(conn) || conn.early()) return false;
  h3_->completed();
  end_quic_attempt();
  return true;
}

bool OriginConnector::connection_closed(Connection& conn) {
  if (!h3_ || !h3_->handshaking(conn)) return false;
  std::optional<Error> reason = conn.close_reason();
  h3_->connection_closed(reason ? std::move(*reason)
                                : Error(ErrorCategory::protocol, "HTTP/3: the connection closed"));
  return true;
}

// The attempt is over without a connection. Falling back is what automatic mode and
// --http3 promise; --http3-only fails what was waiting for it (the pool does that).
void OriginConnector::attempt_failed(Error error) {
  Connection* pending = h3_->release_connection();
  if (pending != nullptr) {
    // Early (0-RTT) requests on it go back to waiting, and so to TCP.
    pending->abandon(
        Error(ErrorCategory::cancelled, "HTTP/3 attempt abandoned: " + error.message()));
  }
  end_quic_attempt();
  if (route_.policy == VersionPolicy::http3_only) {
    if (services_.trace.on()) services_.trace.emit("HTTP/3 failed: " + error.message());
  } else {
    services_.alt_svc.mark_broken(route_.url.origin(), services_.loop.now(),
                                  services_.options.pool.http3_broken_for);
    if (services_.trace.on()) {
      services_.trace.emit("HTTP/3 failed, using TCP for " + route_.url.origin() + ": " +
                           error.message());
    }
  }
  events_.http3_failed(std::move(error), pending);
}

// The attempt may be ending from inside one of its own calls (its timer, its lookup,
// a connection's close): it is stopped now and deleted after the turn.
void OriginConnector::end_quic_attempt() {
  if (!h3_) return;
  h3_->stop();
  auto doomed = std::shared_ptr<Http3Attempt>(std::move(h3_));
  services_.loop.post([doomed] {});
}

void OriginConnector::stop() {
  end_quic_attempt();
  tcp_.clear();
}

}  // namespace sluice
