#pragma once
// The seam inside HTTP/3: QUIC (QuicCodec, over ngtcp2) moves stream bytes; an
// application (H3Session, over nghttp3) gives them meaning. Each side sees the other
// only through these two interfaces, so H3Session is tested against an in-memory
// nghttp3 server without QUIC, and QuicCodec without HTTP/3.
//
// Flow control is the backpressure (docs/architecture.md): the QUIC side returns
// connection-level credit (MAX_DATA) as bytes arrive, so a held stream never stalls
// its siblings; stream-level credit (MAX_STREAM_DATA) is returned only for bytes the
// application says are gone: framing it consumed at once (on_stream_data's result)
// and body bytes a consumer took later (QuicStreams::extend_stream).
//
// Ownership: HTTP thread only. Calls in both directions happen inside one event of
// the connection; neither side may destroy the other from inside a call.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "core/time_source.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// One piece of stream data the application has for the wire. QUIC may resend it
/// from this memory: `base` stays valid until on_stream_acked covers it or the stream
/// closes.
struct QuicVec {
  const std::uint8_t* base = nullptr;
  std::size_t len = 0;
};

/// What the application wants sent next.
struct QuicOutput {
  std::int64_t stream_id = -1;  ///< -1: nothing to send now
  bool fin = false;             ///< the stream's last byte is in `count` vecs
  std::size_t count = 0;        ///< vecs filled
};

/// Implemented by QuicCodec (and by test harnesses): what the application may
/// ask of the transport.
class QuicStreams {
 public:
  virtual ~QuicStreams() = default;
  /// Opens a client-initiated bidirectional stream (a request). Fails when the
  /// server's stream limit is reached (see bidi_streams_left) or the connection closed.
  virtual Result<std::int64_t> open_bidi_stream() = 0;
  /// Opens a client unidirectional stream (HTTP/3 control, QPACK encoder/decoder).
  virtual Result<std::int64_t> open_uni_stream() = 0;
  /// Bidirectional streams the server allows us to open now.
  virtual std::uint64_t bidi_streams_left() const = 0;
  /// Returns `n` bytes of stream credit: a consumer took them, or the stream's
  /// window grew.
  virtual void extend_stream(std::int64_t stream_id, std::uint64_t n) = 0;
  /// Raises the connection's receive window by `n` (connection credit itself comes
  /// back on arrival): stream windows grew and it must stay ahead of their sum.
  virtual void extend_connection_window(std::uint64_t n) = 0;
  /// The path's round-trip time as measured so far (the smallest sample); zero
  /// while unknown.
  virtual std::chrono::nanoseconds path_rtt() const = 0;
  /// Sets how far past what the application consumed the peer may send on this
  /// stream (the request's mark), before any credit is returned. Called once, right
  /// after opening the stream; the transport's initial stream window is small
  /// (64 KiB) so a small mark holds from the first byte.
  virtual void set_stream_window(std::int64_t stream_id, std::uint64_t window) = 0;
  /// The stream's window grew by `by`: the peer may send that much more beyond
  /// what the application consumed (credit for bytes is extend_stream's).
  virtual void grow_stream_window(std::int64_t stream_id, std::uint64_t by) = 0;
  /// Abandons a stream both ways (RESET_STREAM + STOP_SENDING with `app_error`).
  virtual void shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) = 0;
  /// The application has new output (a request, a woken body): the transport calls
  /// next_output soon (at the end of this loop turn at the latest).
  virtual void request_write() = 0;
};

/// Implemented by H3Session: what the transport tells the application.
class QuicApplication {
 public:
  virtual ~QuicApplication() = default;
  /// The handshake completed (ALPN h3): open and bind the control and QPACK streams
  /// (unless on_early_data_ready did and the server accepted the early data).
  virtual Result<void> on_handshake_completed(QuicStreams& streams) = 0;
  /// Whether the application would send 0-RTT early data on a resumed connection.
  virtual bool wants_early_data() const { return false; }
  /// 0-RTT: before the handshake, streams may open within the limits the server
  /// gave last time; what is written goes as early data. Called once, only when
  /// wants_early_data(), before the first packet leaves.
  virtual Result<void> on_early_data_ready(QuicStreams& /*streams*/) { return {}; }
  /// The server refused the early data (or the client could not send it): every
  /// stream opened since on_early_data_ready is gone, nothing of them was
  /// processed. on_handshake_completed follows, on a clean slate.
  virtual void on_early_data_rejected() {}
  /// In-order bytes of a stream; `fin` when they end it. Returns the bytes the
  /// transport may credit at once (framing, or body of a cancelled request); body
  /// bytes handed to a consumer are credited later through extend_stream. An error
  /// closes the connection (an HTTP/3 protocol error, with its message).
  virtual Result<std::size_t> on_stream_data(std::int64_t stream_id,
                                             std::span<const std::uint8_t> data, bool fin) = 0;
  /// The peer acknowledged `n` more bytes we sent on the stream (nghttp3 frees them).
  virtual void on_stream_acked(std::int64_t stream_id, std::uint64_t n) = 0;
  /// The stream is closed both ways; `app_error` when it ended by a reset.
  virtual void on_stream_closed(std::int64_t stream_id, std::optional<std::uint64_t> app_error) = 0;
  /// The peer reset its sending side (RESET_STREAM) with `app_error`.
  virtual void on_stream_reset(std::int64_t stream_id, std::uint64_t app_error) = 0;
  /// The peer asked us to stop sending (STOP_SENDING) with `app_error`; ngtcp2 0.12
  /// does not report the code, so it may be H3_NO_ERROR when the real one is unknown.
  virtual void on_stop_sending(std::int64_t stream_id, std::uint64_t app_error) = 0;
  /// A stream blocked by the peer's flow control may send again.
  virtual void on_stream_writable(std::int64_t stream_id) = 0;
  /// The server raised its stream limit: requests may open streams again.
  virtual void on_streams_available() = 0;
  /// Fills `vecs` with the next stream data to send.
  virtual Result<QuicOutput> next_output(std::span<QuicVec> vecs) = 0;
  /// `n` bytes of the last next_output's stream went into packets (0 with fin alone).
  virtual Result<void> on_output_written(std::int64_t stream_id, std::size_t n) = 0;
  /// The last next_output's stream is blocked by flow control; skip it until
  /// on_stream_writable.
  virtual void on_stream_blocked(std::int64_t stream_id) = 0;
  /// The connection is gone (peer close, idle timeout, handshake failure, stateless
  /// reset, local close): fail every exchange with `error`. Nothing follows.
  virtual void on_connection_closed(const Error& error) = 0;
  /// When the application wants on_timer() (the transport arms it beside its own).
  virtual std::optional<TimePoint> next_deadline() const { return std::nullopt; }
  /// next_deadline() passed; runs inside an event of the transport.
  virtual void on_timer() {}
};

}  // namespace sluice
