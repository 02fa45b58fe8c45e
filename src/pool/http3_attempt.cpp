// HTTP/3 for one origin: the choice and the attempt (see http3_attempt.hpp).
// Thread-safety: HTTP thread only.

#include "pool/http3_attempt.hpp"

#include <utility>

#include "dns/host_overrides.hpp"
#include "pool/connection_factory.hpp"

namespace sluice {

namespace {

std::string millis(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

// Why an origin that asked for HTTP/3 stays on TCP whatever the cache says, or "".
std::string tcp_only_because(const Http3Choice& choice, const Http3Origin& origin) {
  // QUIC is UDP: an HTTP proxy cannot carry it.
  if (origin.proxy) return "HTTP/3 is not used through proxy " + origin.proxy->display;
  if (!choice.network.unix_socket.empty()) return "HTTP/3 is not used over a Unix socket";
  // QUIC is TLS 1.3 only: an h3-only request fails at its QUIC attempt instead, which
  // says why (tls_settings.cpp).
  if (choice.options.tls.max_version == TlsVersion::v1_2 &&
      origin.policy != VersionPolicy::http3_only) {
    return "HTTP/3 needs TLS 1.3 and the TLS maximum is 1.2";
  }
  return "";
}

}  // namespace

std::optional<Http3Target> http3_target(const Http3Choice& choice, const Http3Origin& origin,
                                        TimePoint now) {
  if (!origin.url.is_https()) return std::nullopt;
  if (const std::string because = tcp_only_because(choice, origin); !because.empty()) {
    // Said only when HTTP/3 was asked for: automatic mode never promised it.
    if (origin.policy == VersionPolicy::http3 && choice.trace.on()) {
      choice.trace.emit(because + ": using TCP for " + origin.url.origin());
    }
    return std::nullopt;
  }
  Http3Target target{origin.url.host, origin.url.port, ""};
  // --connect-to moves the QUIC connection too; the certificate still names the origin.
  if (const auto* elsewhere =
          find_connect_to(choice.network.connect_to, origin.url.host, origin.url.port)) {
    if (!elsewhere->connect_host.empty()) target.host = elsewhere->connect_host;
    if (elsewhere->connect_port != 0) target.port = elsewhere->connect_port;
  }
  if (origin.policy == VersionPolicy::http3_only) {
    target.why = "--http3-only";
    return target;
  }
  if (origin.policy != VersionPolicy::automatic && origin.policy != VersionPolicy::http3) {
    return std::nullopt;
  }
  // An h3 connection already up (and full) is not a reason to race another.
  if (origin.seen_version == HttpVersion::http3) return std::nullopt;
  const std::string key = origin.url.origin();
  if (choice.alt_svc.is_broken(key, now)) return std::nullopt;
  if (auto alternative = choice.alt_svc.lookup(key, now)) {
    target.host = std::string(alternative->host_or(origin.url.host));
    target.port = alternative->port;
    target.why = "Alt-Svc";
    return target;
  }
  if (origin.policy == VersionPolicy::http3) {
    target.why = "--http3";
    return target;
  }
  return std::nullopt;
}

Http3Attempt::Http3Attempt(Services services, Reports& reports, Http3Target target,
                           Settings settings)
    : services_(services),
      reports_(reports),
      target_(std::move(target)),
      settings_(std::move(settings)) {}

Http3Attempt::~Http3Attempt() { stop(); }

void Http3Attempt::start() {
  if (services_.trace.on()) {
    services_.trace.emit("trying HTTP/3 for " + settings_.origin + " at " + target_.host + ":" +
                         std::to_string(target_.port) + " (" + target_.why + ")");
  }
  if (settings_.fallback_after) {
    fallback_timer_ = services_.loop.add_timer(services_.loop.now() + *settings_.fallback_after,
                                               [this] { on_fallback_timer(); });
  }
  timing_.dns_start = services_.loop.now();
  lookup_ = services_.resolver.resolve(
      target_.host, target_.port,
      [this](Result<std::vector<SocketAddress>> addresses) { on_resolved(std::move(addresses)); });
}

void Http3Attempt::stop() {
  if (fallback_timer_ != 0) services_.loop.cancel_timer(fallback_timer_);
  fallback_timer_ = 0;
  lookup_.reset();
}

void Http3Attempt::on_resolved(Result<std::vector<SocketAddress>> addresses) {
  timing_.dns_end = services_.loop.now();
  if (!addresses) {
    reports_.attempt_failed(std::move(addresses).error());
    return;
  }
  addresses_ = std::move(*addresses);
  try_next_address();
}

void Http3Attempt::try_next_address() {
  while (!addresses_.empty()) {
    const SocketAddress remote = addresses_.front();
    addresses_.erase(addresses_.begin());
    auto conn =
        services_.factory.connect_quic(remote, settings_.verify_host, settings_.handshake_timeout,
                                       services_.owner, reports_.next_conn_id());
    if (!conn) {
      last_error_ = std::move(conn).error();
      continue;
    }
    conn_ = conn->get();
    // QUIC connects and secures in one handshake: both steps start here, end in completed().
    timing_.connect_start = timing_.tls_start = services_.loop.now();
    timing_.remote_ip = remote.ip();
    timing_.remote_port = remote.port();
    timing_.local_ip = (*conn)->connect_timing().local_ip;
    timing_.local_port = (*conn)->connect_timing().local_port;
    reports_.adopt(std::move(*conn));
    return;
  }
  reports_.attempt_failed(
      last_error_ ? *last_error_
                  : Error(ErrorCategory::connect, "HTTP/3: no address for " + target_.host));
}

void Http3Attempt::on_fallback_timer() {
  fallback_timer_ = 0;
  reports_.attempt_failed(
      Error(ErrorCode::handshake_timeout, "HTTP/3: no QUIC handshake with " + target_.host + ":" +
                                              std::to_string(target_.port) + " within " +
                                              millis(*settings_.fallback_after)));
}

void Http3Attempt::completed() {
  if (conn_ == nullptr) return;
  if (services_.trace.on()) {
    services_.trace.emit("HTTP/3 to " + settings_.origin + " is up (c" +
                         std::to_string(conn_->id()) + ")");
  }
  timing_.connect_end = timing_.tls_end = services_.loop.now();
  timing_.tls_verify_result = conn_->handshake_verify_result();
  timing_.tls = conn_->handshake_tls_info();
  conn_->set_connect_timing(std::move(timing_));
  conn_ = nullptr;
  stop();
}

void Http3Attempt::connection_closed(Error reason) {
  conn_ = nullptr;
  last_error_ = std::move(reason);
  try_next_address();
}

Connection* Http3Attempt::release_connection() noexcept { return std::exchange(conn_, nullptr); }

}  // namespace sluice
