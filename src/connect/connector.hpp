#pragma once
// Connector: one attempt to open a TCP connection to an origin: resolve, TCP connect,
// TLS to an https:// proxy, a tunnel through the proxy when asked (CONNECT, SOCKS5),
// and for https the TLS handshake with ALPN (end to end, inside the tunnel, so over
// an https:// proxy TLS inside TLS). Reports a ready Transport or an Error;
// errors on the way to a proxy name it ("proxy 127.0.0.1:3128: connect: ...").
// (HTTP/3's QUIC handshake is QuicCodec's, in src/quic.)
// Ownership: HTTP thread only; destroying it cancels the attempt (no callback).

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "connect/proxy_hop.hpp"
#include "connect/tunnel_handshake.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "dns/resolver.hpp"
#include "net/connect_timing.hpp"
#include "net/tcp_connect.hpp"
#include "net/transport.hpp"
#include "tls/tls.hpp"

namespace sluice {

class Connector : private FdWatcher {
 public:
  using Callback = std::function<void(Result<std::unique_ptr<Transport>>)>;
  /// Where to connect.
  struct Target {
    std::string host;
    std::uint16_t port = 0;
    bool tls = false;               ///< https: a TLS handshake follows the connect
    std::string origin;             ///< "https://host:port", for trace lines
    std::optional<ProxyHop> proxy;  ///< reach it through this proxy
    /// --connect-to: connect (or tunnel) to this host and port instead; TLS still
    /// names `host`. Empty / 0: `host` and `port`.
    std::string connect_host;
    std::uint16_t connect_port = 0;
    /// --unix-socket: connect to this Unix socket path instead (no DNS, no proxy).
    std::string unix_socket;
  };
  struct Options {
    std::chrono::milliseconds tls_timeout{0};  ///< 0 = none
    std::vector<std::string> alpn;             ///< for https
    std::uint64_t conn_id = 0;                 ///< the connection it will become
    ConnectAttempts attempts;                  ///< Happy Eyeballs' delay and deadline
    const Trace* trace = nullptr;
    TlsContext* proxy_tls = nullptr;  ///< trust for https:// proxies
  };

  Connector(EventLoop& loop, Resolver& resolver, TlsContext* tls, const Target& target,
            Options options, Callback done);
  ~Connector() override;
  /// Sets (or replaces) the callback; for owners that create the connector first.
  void set_callback(Callback done) { done_ = std::move(done); }
  /// The steps so far; complete once the callback got a transport.
  const ConnectTiming& timing() const noexcept { return timing_; }

 private:
  /// Resolves where to connect: the proxy's name, or the target's.
  void resolve_next_hop(Resolver& resolver);
  /// SOCKS5 with local resolution: the target's address, before the proxy's.
  void on_target_resolved(Resolver& resolver, Result<std::vector<SocketAddress>> addresses);
  void on_resolved(Result<std::vector<SocketAddress>> addresses);
  void on_connected(Result<int> fd);
  /// Starts Happy Eyeballs over `addresses`.
  void connect_to(std::vector<SocketAddress> addresses);
  /// TLS to an https:// proxy, on `fd`; then the tunnel or done.
  void secure_proxy(int fd);
  /// The way to the proxy is ready (TCP, or TLS to it): the tunnel, or done.
  void through_proxy();
  /// After TCP (and the tunnel, if any): TLS for https over `under`, else done.
  void secure(std::unique_ptr<Transport> under);
  void on_fd_ready(std::uint32_t events) override;
  /// The proxy's handshake over hop_ (HTTP CONNECT or SOCKS5): sends what it says,
  /// reads the answers, then goes on to secure() or fails.
  void drive_tunnel();
  /// Sends what the handshake has to say; false when the socket is full (watched) or
  /// it failed (finished).
  bool send_tunnel_output();
  /// Watches `fd` for `events` (registering it the first time).
  Result<void> watch_for(int fd, std::uint32_t events);
  /// "host:port" of the target, bracketed for IPv6, as CONNECT names it.
  std::string target_authority() const;
  /// An error on the way to the proxy, named so: "proxy 127.0.0.1:3128: ...".
  Error via_proxy(Error error) const;
  /// Advances the TLS handshake of handshaking_ (the proxy's, or the target's).
  void drive_handshake();
  /// Arms the limit of a proxy's part (TLS to it and the tunnel).
  void arm_proxy_timer();
  void finish(Result<std::unique_ptr<Transport>> result);
  void trace(const std::string& what) const;

  EventLoop& loop_;
  TlsContext* tls_;
  std::string host_;  // the name TLS verifies and SNI carries
  std::uint16_t port_;
  std::string connect_host_;  // where the connection (or tunnel) goes
  std::uint16_t connect_port_;
  bool https_;
  std::optional<ProxyHop> proxy_;
  Options options_;
  Callback done_;
  std::unique_ptr<Resolver::Lookup> lookup_;
  std::unique_ptr<TcpConnect> connect_;
  std::unique_ptr<Transport> handshaking_;
  int watched_fd_ = -1;  // registered with the loop (the tunnel's, then TLS's socket)
  EventLoop::TimerId tls_timer_ = 0;
  ConnectTiming timing_;
  // The way to the proxy (plain, or TLS to an https:// proxy) while the tunnel
  // opens; then TLS or the finished transport takes it.
  std::unique_ptr<Transport> hop_;
  std::unique_ptr<TunnelHandshake> tunnel_;
  bool proxy_handshake_ = false;                 // handshaking_ is TLS to the proxy, not the target
  std::optional<SocketAddress> target_address_;  // SOCKS5 with local resolution
};

}  // namespace sluice
