#pragma once
// HTTP/3 for one origin: whether and where to try it (http3_target), and the attempt
// itself (Http3Attempt). An origin is tried over QUIC for VersionPolicy::http3 and
// http3_only, and in automatic mode when it announced h3 in Alt-Svc. The attempt
// resolves the h3 host, handshakes with one address after another, and ends one of
// three ways, which the origin's OriginConnector acts on:
//   - the handshake completed (completed()): the connection serves everyone waiting;
//   - it failed, or (when falling back is allowed) did not complete within
//     ClientOptions::pool.http3_fallback_after (Events::failed): the connector marks the
//     origin's h3 broken for http3_broken_for and the pool sends the waiting requests
//     to TCP;
//   - with http3_only the same failure fails what was waiting.
// Ownership: HTTP thread only. The OriginConnector owns the attempt while it runs; the
// connection it handshakes belongs to the pool's list for the origin from the start (so
// that the pool hears its events) and the attempt only points at it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "connect/connector.hpp"
#include "connect/proxy_hop.hpp"
#include "connection/connection.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "dns/resolver.hpp"
#include "pool/network_settings.hpp"
#include "sluice/client.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"
#include "web/alt_svc.hpp"

namespace sluice {

class ConnectionFactory;

/// Where to try HTTP/3, and why (for the trace: "--http3", "Alt-Svc", "--http3-only").
struct Http3Target {
  std::string host;  // the Alt-Svc host, a --connect-to host, or the origin's
  std::uint16_t port = 0;
  std::string why;
};

/// What the choice of HTTP/3 reads: the Client's settings and its Alt-Svc cache.
struct Http3Choice {
  const ClientOptions& options;
  const NetworkSettings& network;
  AltSvcCache& alt_svc;
  const Trace& trace;
};

/// The origin as the choice sees it.
struct Http3Origin {
  const Url& url;
  VersionPolicy policy;
  const std::optional<ProxyHop>& proxy;
  std::optional<HttpVersion> seen_version;  // what its last connection spoke
};

/// Where to try HTTP/3 for `origin` at `now`, or nothing: TCP it is. Says in the
/// trace why an origin that asked for HTTP/3 does not get it (a proxy, a Unix socket,
/// a TLS maximum of 1.2).
std::optional<Http3Target> http3_target(const Http3Choice& choice, const Http3Origin& origin,
                                        TimePoint now);

class Http3Attempt {
 public:
  struct Services {
    EventLoop& loop;
    Resolver& resolver;
    ConnectionFactory& factory;
    ConnectionOwner& owner;  // hears the handshaking connection's events
    const Trace& trace;
  };
  /// Whom the attempt reports to: its origin's connector. An attempt reports only
  /// while it runs: once stopped it calls nothing here, and its destructor touches
  /// nothing of it, so the connector may go first (both are freed after a turn).
  class Reports {
   public:
    virtual std::uint64_t next_conn_id() = 0;
    /// A connection starts its handshake: the origin holds it from now on.
    virtual void adopt(std::unique_ptr<Connection> conn) = 0;
    /// The attempt is over without a connection; the pool ends it (it may be called
    /// from inside the attempt: the attempt touches nothing of its own after it).
    virtual void attempt_failed(Error error) = 0;

   protected:
    ~Reports() = default;
  };
  struct Settings {
    std::string origin;       // "https://host:port", for the trace
    std::string verify_host;  // the certificate names the origin, never the Alt-Svc host
    std::chrono::milliseconds handshake_timeout{0};
    /// When the attempt gives up for TCP; nothing for http3_only, which never does.
    std::optional<std::chrono::milliseconds> fallback_after;
  };

  Http3Attempt(Services services, Reports& reports, Http3Target target, Settings settings);
  ~Http3Attempt();
  Http3Attempt(const Http3Attempt&) = delete;
  Http3Attempt& operator=(const Http3Attempt&) = delete;

  /// Starts the fallback timer and the lookup of the target's host.
  void start();
  /// Whether `conn` is the connection in its handshake.
  bool handshaking(const Connection& conn) const noexcept { return conn_ == &conn; }
  /// Its handshake completed: the connection gets the attempt's timing and is an
  /// ordinary pooled connection from now on.
  void completed();
  /// It closed before its handshake completed (`reason`): the next address, or failed.
  void connection_closed(Error reason);
  /// The connection still in its handshake (null if none), no longer the attempt's:
  /// the pool closes it when the attempt failed.
  Connection* release_connection() noexcept;
  /// Cancels the timer and the lookup: nothing of the attempt fires after this.
  void stop();

 private:
  void on_resolved(Result<std::vector<SocketAddress>> addresses);
  void try_next_address();
  void on_fallback_timer();

  Services services_;
  Reports& reports_;
  Http3Target target_;
  Settings settings_;
  std::unique_ptr<Resolver::Lookup> lookup_;
  std::vector<SocketAddress> addresses_;  // left to try
  Connection* conn_ = nullptr;            // handshaking; owned by the origin
  EventLoop::TimerId fallback_timer_ = 0;
  std::optional<Error> last_error_;
  ConnectTiming timing_;  // the lookup, and the handshake of the address tried now
};

}  // namespace sluice
