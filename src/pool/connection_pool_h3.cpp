// The pool's side of an origin's HTTP/3 attempt (pool/http3_attempt.hpp): when to
// start one, what the origin holds while it runs, and what its end means. One attempt
// per origin at a time; the waiters waiting for the origin wait for it. A failed
// attempt marks the origin's h3 broken for http3_broken_for and sends the waiting
// waiters to TCP as in automatic mode, except with http3_only, which fails them.
// HTTP thread only, like the rest of ConnectionPool.

#include <memory>
#include <utility>

#include "pool/connection_pool.hpp"

namespace sluice {

std::optional<Http3Target> ConnectionPool::http3_target_for(const Origin& origin) {
  const Http3Choice choice{services_.options, services_.network, services_.alt_svc,
                           services_.trace};
  return http3_target(choice, {origin.url, origin.policy, origin.proxy, origin.seen_version},
                      services_.loop.now());
}

std::chrono::milliseconds ConnectionPool::h3_handshake_timeout(const Origin& origin) const {
  // Only an attempt that cannot fall back waits as long as a TCP connect would.
  if (origin.policy == VersionPolicy::http3_only) {
    const auto connect = origin.waiting.empty() ? std::chrono::milliseconds(30'000)
                                                : origin.waiting.front()->connect_timeout();
    return connect.count() > 0 ? connect : std::chrono::milliseconds(30'000);
  }
  return services_.options.http3_fallback_after;
}

void ConnectionPool::open_h3(const std::string& key, Origin& origin, Http3Target target) {
  Http3Attempt::Events events{
      [this] { return next_conn_id_++; },
      [this, key](std::unique_ptr<Connection> conn) {
        conn_origin_[conn.get()] = key;
        origins_[key].conns.push_back(std::move(conn));
      },
      [this, key](Error error) { h3_failed(key, std::move(error)); },
  };
  Http3Attempt::Settings settings{origin.url.origin(), origin.url.host,
                                  h3_handshake_timeout(origin), std::nullopt};
  if (origin.policy != VersionPolicy::http3_only) {
    settings.fallback_after = services_.options.http3_fallback_after;
  }
  origin.h3 = std::make_unique<Http3Attempt>(
      Http3Attempt::Services{services_.loop, services_.resolver, factory_, *this, services_.trace},
      std::move(events), std::move(target), std::move(settings));
  origin.h3->start();
}

void ConnectionPool::h3_ready(Origin& origin) {
  origin.h3->completed();
  end_h3_attempt(origin);
  origin.seen_version = HttpVersion::http3;
}

// The attempt is over without a connection. Falling back is what automatic mode and
// --http3 promise; --http3-only fails what was waiting for it.
void ConnectionPool::h3_failed(const std::string& key, Error error) {
  Origin& origin = origins_[key];
  if (Connection* pending = origin.h3->release_connection()) {
    // Early (0-RTT) requests on it go back to waiting, and so to TCP below.
    pending->abandon(
        Error(ErrorCategory::cancelled, "HTTP/3 attempt abandoned: " + error.message()));
    on_connection_closed(*pending);  // removes it; the attempt no longer claims it
  }
  end_h3_attempt(origin);
  if (origin.policy == VersionPolicy::http3_only) {
    if (services_.trace.on()) services_.trace.emit("HTTP/3 failed: " + error.message());
    if (origin.conns.empty()) {
      for (ConnectionWaiter* waiter : std::exchange(origin.waiting, {})) waiter->fail(error);
    }
    forget_if_unused(key);
    return;
  }
  const TimePoint now = services_.loop.now();
  services_.alt_svc.mark_broken(origin.url.origin(), now, services_.options.http3_broken_for);
  if (services_.trace.on()) {
    services_.trace.emit("HTTP/3 failed, using TCP for " + origin.url.origin() + ": " +
                         error.message());
  }
  dispatch(key);
  forget_if_unused(key);
}

// The attempt may be ending from inside one of its own calls (its timer, its lookup,
// a connection's close): it is stopped now and deleted after the turn.
void ConnectionPool::end_h3_attempt(Origin& origin) {
  if (!origin.h3) return;
  origin.h3->stop();
  auto doomed = std::shared_ptr<Http3Attempt>(std::move(origin.h3));
  services_.loop.post([doomed] {});
}

}  // namespace sluice
