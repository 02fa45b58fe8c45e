// The pool's HTTP/3 attempts: when an origin is tried over QUIC (VersionPolicy::http3
// and http3_only, or automatic mode for an origin that announced h3 in Alt-Svc), how
// the attempt runs, and how it falls back to TCP. One attempt per origin at a time;
// transfers wait for it. It resolves the h3 host, handshakes with one address after
// another, and ends in one of three ways:
//   - the handshake completed: the connection serves everyone waiting;
//   - it failed, or (when falling back is allowed) did not complete within
//     ClientOptions::http3_fallback_after: the origin's h3 is marked broken for
//     http3_broken_for and the waiting transfers go to TCP as in automatic mode;
//   - with http3_only: the waiting transfers fail with the QUIC error.
// HTTP thread only, like the rest of ConnectionPool.

#include "client/client_core.hpp"
#include "client/connection_pool.hpp"
#include "client/transfer.hpp"

namespace sluice {

namespace {
std::string millis(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }
}  // namespace

bool ConnectionPool::should_try_h3(Origin& origin, std::string* why, std::string* host,
                                   std::uint16_t* port) {
  if (!origin.https) return false;
  if (origin.proxy) {
    // QUIC is UDP: an HTTP proxy cannot carry it, so a proxied origin stays on TCP.
    if (origin.policy == VersionPolicy::http3 && core_.trace().on()) {
      core_.trace().emit("HTTP/3 is not used through proxy " + origin.proxy->display +
                         ": using TCP for " + origin.url.origin());
    }
    return false;
  }
  if (!core_.network().unix_socket.empty()) {
    if (core_.trace().on()) {
      core_.trace().emit("HTTP/3 is not used over a Unix socket: using TCP for " +
                         origin.url.origin());
    }
    return false;
  }
  // QUIC is TLS 1.3 only: with a TLS maximum of 1.2 an origin stays on TCP, and an
  // h3-only request fails at its QUIC attempt, which says why (tls_settings.cpp).
  if (core_.options().tls_max_version == TlsVersion::v1_2 &&
      origin.policy != VersionPolicy::http3_only) {
    if (origin.policy == VersionPolicy::http3 && core_.trace().on()) {
      core_.trace().emit("HTTP/3 needs TLS 1.3 and the TLS maximum is 1.2: using TCP for " +
                         origin.url.origin());
    }
    return false;
  }
  *host = origin.url.host;
  *port = origin.url.port;
  // --connect-to moves the QUIC connection too; the certificate still names the origin.
  if (const auto* elsewhere =
          find_connect_to(core_.network().connect_to, origin.url.host, origin.url.port)) {
    if (!elsewhere->connect_host.empty()) *host = elsewhere->connect_host;
    if (elsewhere->connect_port != 0) *port = elsewhere->connect_port;
  }
  if (origin.policy == VersionPolicy::http3_only) {
    *why = "--http3-only";
    return true;
  }
  if (origin.policy != VersionPolicy::automatic && origin.policy != VersionPolicy::http3) {
    return false;
  }
  // An h3 connection already up (and full) is not a reason to race another.
  if (origin.seen_version == HttpVersion::http3) return false;
  const TimePoint now = core_.loop().now();
  const std::string key = origin.url.origin();
  if (core_.alt_svc().is_broken(key, now)) return false;
  if (auto alternative = core_.alt_svc().lookup(key, now)) {
    *host = std::string(alternative->host_or(origin.url.host));
    *port = alternative->port;
    *why = "Alt-Svc";
    return true;
  }
  if (origin.policy == VersionPolicy::http3) {
    *why = "--http3";
    return true;
  }
  return false;
}

std::chrono::milliseconds ConnectionPool::h3_handshake_timeout(const Origin& origin) const {
  // Only an attempt that cannot fall back waits as long as a TCP connect would.
  if (origin.policy == VersionPolicy::http3_only) {
    const auto connect = origin.waiting.empty() ? std::chrono::milliseconds(30'000)
                                                : origin.waiting.front()->connect_timeout();
    return connect.count() > 0 ? connect : std::chrono::milliseconds(30'000);
  }
  return core_.options().http3_fallback_after;
}

void ConnectionPool::open_h3(const std::string& key, Origin& origin, std::string why,
                             std::string host, std::uint16_t port) {
  origin.h3 = std::make_unique<H3Attempt>();
  origin.h3->host = std::move(host);
  origin.h3->port = port;
  origin.h3->why = std::move(why);
  if (core_.trace().on()) {
    core_.trace().emit("trying HTTP/3 for " + origin.url.origin() + " at " + origin.h3->host + ":" +
                       std::to_string(port) + " (" + origin.h3->why + ")");
  }
  if (origin.policy != VersionPolicy::http3_only) {
    origin.h3->fallback_timer = core_.loop().add_timer(
        core_.loop().now() + core_.options().http3_fallback_after,
        [this, key] { on_h3_fallback_timer(key); });
  }
  origin.h3->timing.dns_start = core_.loop().now();
  origin.h3->lookup = core_.resolver().resolve(
      origin.h3->host, port,
      [this, key](Result<std::vector<SocketAddress>> addresses) {
        on_h3_resolved(key, std::move(addresses));
      });
}

void ConnectionPool::on_h3_resolved(const std::string& key,
                                    Result<std::vector<SocketAddress>> addresses) {
  auto found = origins_.find(key);
  if (found == origins_.end() || !found->second.h3) return;
  found->second.h3->timing.dns_end = core_.loop().now();
  if (!addresses) {
    h3_failed(key, std::move(addresses).error());
    return;
  }
  found->second.h3->addresses = std::move(*addresses);
  try_next_h3_address(key);
}

void ConnectionPool::try_next_h3_address(const std::string& key) {
  Origin& origin = origins_[key];
  H3Attempt& attempt = *origin.h3;
  if (attempt.addresses.empty()) {
    h3_failed(key, attempt.last_error ? *attempt.last_error
                                      : Error(ErrorCategory::connect,
                                              "HTTP/3: no address for " + attempt.host));
    return;
  }
  const SocketAddress remote = attempt.addresses.front();
  attempt.addresses.erase(attempt.addresses.begin());
  // The certificate is verified against the origin's host, never the Alt-Svc host.
  auto conn = factory_.connect_quic(remote, origin.url.host, h3_handshake_timeout(origin), *this,
                                    next_conn_id_++);
  if (!conn) {
    attempt.last_error = std::move(conn).error();
    try_next_h3_address(key);
    return;
  }
  attempt.conn = conn->get();
  // QUIC connects and secures in one handshake: both steps start here, end in h3_ready.
  attempt.timing.connect_start = attempt.timing.tls_start = core_.loop().now();
  attempt.timing.remote_ip = remote.ip();
  attempt.timing.remote_port = remote.port();
  attempt.timing.local_ip = (*conn)->connect_timing().local_ip;
  attempt.timing.local_port = (*conn)->connect_timing().local_port;
  conn_origin_[attempt.conn] = key;
  origin.conns.push_back(std::move(*conn));
}

void ConnectionPool::on_h3_fallback_timer(const std::string& key) {
  auto found = origins_.find(key);
  if (found == origins_.end() || !found->second.h3) return;
  Origin& origin = found->second;
  origin.h3->fallback_timer = 0;
  h3_failed(key, Error(ErrorCode::handshake_timeout,
                       "HTTP/3: no QUIC handshake with " + origin.h3->host + ":" +
                           std::to_string(origin.h3->port) + " within " +
                           millis(core_.options().http3_fallback_after)));
}

void ConnectionPool::h3_ready(const std::string& key) {
  Origin& origin = origins_[key];
  if (core_.trace().on()) {
    core_.trace().emit("HTTP/3 to " + origin.url.origin() + " is up (c" +
                       std::to_string(origin.h3->conn->id()) + ")");
  }
  ConnectTiming& timing = origin.h3->timing;
  timing.connect_end = timing.tls_end = core_.loop().now();
  timing.tls_verify_result = origin.h3->conn->handshake_verify_result();
  origin.h3->conn->set_connect_timing(std::move(timing));
  origin.h3->conn = nullptr;  // no longer an attempt: an ordinary pooled connection
  end_h3_attempt(origin);
  origin.seen_version = HttpVersion::http3;
}

// The attempt is over without a connection. Falling back is what automatic mode and
// --http3 promise; --http3-only fails what was waiting for it.
void ConnectionPool::h3_failed(const std::string& key, Error error) {
  Origin& origin = origins_[key];
  if (Connection* pending = origin.h3->conn) {
    origin.h3->conn = nullptr;
    // Early (0-RTT) requests on it go back to waiting, and so to TCP below.
    pending->abandon(Error(ErrorCategory::cancelled, "HTTP/3 attempt abandoned: " + error.message()));
    on_connection_closed(*pending);  // removes it; the attempt no longer claims it
  }
  end_h3_attempt(origin);
  if (origin.policy == VersionPolicy::http3_only) {
    if (core_.trace().on()) core_.trace().emit("HTTP/3 failed: " + error.message());
    if (origin.conns.empty()) {
      for (Transfer* transfer : std::exchange(origin.waiting, {})) transfer->fail(error);
    }
    forget_if_unused(key);
    return;
  }
  const TimePoint now = core_.loop().now();
  core_.alt_svc().mark_broken(origin.url.origin(), now, core_.options().http3_broken_for);
  if (core_.trace().on()) {
    core_.trace().emit("HTTP/3 failed, using TCP for " + origin.url.origin() + ": " +
                       error.message());
  }
  dispatch(key);
  forget_if_unused(key);
}

void ConnectionPool::end_h3_attempt(Origin& origin) {
  if (!origin.h3) return;
  if (origin.h3->fallback_timer != 0) core_.loop().cancel_timer(origin.h3->fallback_timer);
  origin.h3.reset();
}

}  // namespace sluice
