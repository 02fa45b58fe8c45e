// QuicConnection: a socket, a driver and a codec put together (see
// quic_connection.hpp).
// Ownership: HTTP thread only.

#include "quic/quic_connection.hpp"

#include <utility>

namespace sluice {

Result<std::unique_ptr<QuicConnection>> QuicConnection::connect(EventLoop& loop,
                                                                QuicOptions options,
                                                                QuicApplication& app,
                                                                const Trace& trace,
                                                                std::uint64_t conn_id) {
  auto socket = UdpSocket::connect(options.remote, "QUIC", options.local);
  if (!socket) return std::move(socket).error();
  QuicCodec::Path path{socket->local(), socket->remote()};
  const bool gso = socket->gso_enabled();
  std::unique_ptr<QuicConnection> conn(new QuicConnection(loop, std::move(socket).value()));
  auto codec =
      QuicCodec::create(std::move(options), std::move(path), conn->driver_, app, trace, conn_id);
  if (!codec) return std::move(codec).error();
  conn->codec_ = std::move(codec).value();
  if (trace.on()) {
    trace.emit(conn_id, "h3",
               "connecting to " + conn->codec_->peer() + " (" +
                   conn->driver_.socket().remote().to_string() + " over UDP" +
                   (gso ? ", GSO" : "") + ")");
  }
  auto started = conn->driver_.start(*conn->codec_);
  if (!started) return std::move(started).error();
  return conn;
}

QuicConnection::QuicConnection(EventLoop& loop, UdpSocket socket)
    : driver_(loop, std::move(socket)) {}

// The codec first: its ngtcp2 connection may name the socket's addresses.
QuicConnection::~QuicConnection() { codec_.reset(); }

}  // namespace sluice
