#pragma once
// Connector: one attempt to open a TCP connection to an origin: resolve, TCP connect,
// and for https the TLS handshake with ALPN. Reports a ready Transport or an Error.
// (HTTP/3's QUIC handshake is QuicCodec's, in src/quic.)
// Ownership: HTTP thread only; destroying it cancels the attempt (no callback).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "io/connect_timing.hpp"
#include "io/event_loop.hpp"
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
  void on_fd_ready(std::uint32_t events) override;
  void drive_handshake();
  void finish(Result<std::unique_ptr<Transport>> result);
  void trace(const std::string& what) const;

  EventLoop& loop_;
  TlsContext* tls_;
  std::string host_;
  std::uint16_t port_;
  bool https_;
  Options options_;
  Callback done_;
  std::unique_ptr<Resolver::Lookup> lookup_;
  std::unique_ptr<TcpConnect> connect_;
  std::unique_ptr<Transport> handshaking_;
  bool watching_ = false;
  EventLoop::TimerId tls_timer_ = 0;
  ConnectTiming timing_;
};

}  // namespace sluice
