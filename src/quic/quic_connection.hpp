#pragma once
// QuicConnection: a QuicCodec carried over a connected UDP socket by a DatagramDriver:
// what H3Connection runs in production. The codec speaks QUIC without I/O; the
// driver owns the socket, the send batch and the one timer (net/datagram_driver.hpp).
// Ownership: HTTP thread only. Owned by the glue that owns the application
// (H3Connection); the codec is destroyed before the driver that carries it.

#include <cstdint>
#include <memory>

#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "net/datagram_driver.hpp"
#include "quic/quic_codec.hpp"

namespace sluice {

class QuicConnection {
 public:
  /// Creates the socket, the TLS session and the ngtcp2 connection; the first
  /// packets leave at the end of this loop turn. An Error here is local (no socket,
  /// unreadable CA file, unreachable address family) and the application hears
  /// nothing; every later failure reaches it as on_connection_closed. `app` and
  /// `trace` outlive the connection.
  static Result<std::unique_ptr<QuicConnection>> connect(EventLoop& loop, QuicOptions options,
                                                         QuicApplication& app, const Trace& trace,
                                                         std::uint64_t conn_id);
  /// Silent: no CONNECTION_CLOSE, no callback. Call close() first for a polite end.
  ~QuicConnection();
  QuicConnection(const QuicConnection&) = delete;
  QuicConnection& operator=(const QuicConnection&) = delete;

  QuicCodec& codec() noexcept { return *codec_; }
  const QuicCodec& codec() const noexcept { return *codec_; }
  /// See QuicCodec::close.
  void close(Error error, std::uint64_t app_error = QuicCodec::kH3NoError) {
    codec_->close(std::move(error), app_error);
  }
  bool is_closed() const noexcept { return codec_->is_closed(); }
  /// Where the UDP socket is bound (the connection's local end).
  const SocketAddress& local_address() const noexcept { return driver_.socket().local(); }
  void request_write() { codec_->request_write(); }
  /// Whether sends go out as UDP GSO runs (false once closed).
  bool uses_gso() const noexcept { return !driver_.closed() && driver_.socket().gso_enabled(); }
  /// Frees the receive scratch and an idle send batch; returns the bytes freed.
  std::size_t release_scratch() { return driver_.release_scratch(); }
  std::size_t scratch_bytes() const noexcept { return driver_.scratch_bytes(); }

 private:
  QuicConnection(EventLoop& loop, UdpSocket socket);

  DatagramDriver driver_;
  std::unique_ptr<QuicCodec> codec_;  // reset before driver_ goes
};

}  // namespace sluice
