#pragma once
// Connector: one attempt to open a TCP connection to an origin: resolve, TCP connect,
// through an HTTP proxy a CONNECT tunnel when asked, and for https the TLS handshake
// with ALPN (end to end, inside the tunnel). Reports a ready Transport or an Error;
// errors on the way to a proxy name it ("proxy 127.0.0.1:3128: connect: ...").
// (HTTP/3's QUIC handshake is QuicCodec's, in src/quic.)
// Ownership: HTTP thread only; destroying it cancels the attempt (no callback).

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "io/connect_timing.hpp"
#include "io/event_loop.hpp"
#include "io/proxy_connect.hpp"
#include "io/proxy_hop.hpp"
#include "io/tcp_connect.hpp"
#include "io/tls.hpp"
#include "io/trace.hpp"
#include "io/transport.hpp"

namespace sluice {

class Connector : private FdWatcher {
 public:
  using Callback = std::function<void(Result<std::unique_ptr<Transport>>)>;
  /// Where to connect.
  struct Target {
    std::string host;
    std::uint16_t port = 0;
    bool tls = false;      ///< https: a TLS handshake follows the connect
    std::string origin;    ///< "https://host:port", for trace lines
    std::optional<ProxyHop> proxy;  ///< reach it through this proxy
  };
  struct Options {
    std::chrono::milliseconds tls_timeout{0};  ///< 0 = none
    std::vector<std::string> alpn;             ///< for https
    std::uint64_t conn_id = 0;                 ///< the connection it will become
    const Trace* trace = nullptr;
  };

  Connector(EventLoop& loop, Resolver& resolver, TlsContext* tls, const Target& target,
            Options options, Callback done);
  ~Connector() override;
  /// Sets (or replaces) the callback; for owners that create the connector first.
  void set_callback(Callback done) { done_ = std::move(done); }
  /// The steps so far; complete once the callback got a transport.
  const ConnectTiming& timing() const noexcept { return timing_; }

 private:
  void on_resolved(Result<std::vector<SocketAddress>> addresses);
  void on_connected(Result<int> fd);
  /// After TCP (and the tunnel, if any): TLS for https, else done.
  void secure(int fd);
  void on_fd_ready(std::uint32_t events) override;
  /// The CONNECT exchange on tunnel_fd_: sends the request, reads the answer, then
  /// goes on to secure() or fails.
  void drive_tunnel();
  /// Steps of drive_tunnel: each returns false when it is not done yet (waiting for
  /// the socket, or failed and finished).
  bool send_connect();
  bool read_connect_reply();
  void tunnel_answered();
  /// Watches `fd` for `events` (registering it the first time).
  Result<void> watch_for(int fd, std::uint32_t events);
  /// "host:port" of the target, bracketed for IPv6, as CONNECT names it.
  std::string target_authority() const;
  /// An error on the way to the proxy, named so: "proxy 127.0.0.1:3128: ...".
  Error via_proxy(Error error) const;
  void drive_handshake();
  void finish(Result<std::unique_ptr<Transport>> result);
  void trace(const std::string& what) const;

  EventLoop& loop_;
  TlsContext* tls_;
  std::string host_;
  std::uint16_t port_;
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
  // The tunnel: its socket (owned until TLS or a transport takes it), the CONNECT
  // bytes not yet sent, and the answer so far.
  int tunnel_fd_ = -1;
  std::string tunnel_request_;
  std::size_t tunnel_sent_ = 0;
  ConnectReply tunnel_reply_;
};

}  // namespace sluice
