#pragma once
// H3Connection: one HTTP/3 connection behind the protocol seam (connection/connection.hpp):
// a QuicConnection (ngtcp2 over the UDP socket and its timer) carrying an H3Session (nghttp3,
// the exchanges). It stands between the two as the QuicApplication so that it sees
// the handshake complete (the pool may start exchanges) and the connection end (with
// its reason, which a pool falling back to TCP, or failing an --http3-only request,
// needs), and passes everything else to the session.
// Until the handshake completes available_streams() is 0: the pool waits, or falls
// back to TCP, and never starts an exchange on a connection that may never be.
// The exception is 0-RTT (ClientOptions::tls.early_data): a resumed connection
// takes requests safe to replay (early() says so) before its first packet leaves.
// Should the server refuse the early data, or the handshake fail, those requests
// hear on_unprocessed and go again: after the handshake, or over another connection.
// Ownership: HTTP thread only; owned by a pool in src/client (via ConnectionOwner).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "connection/connection.hpp"
#include "connection/owner_reports.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "http3/h3_session.hpp"
#include "http3/h3_wire_tap.hpp"
#include "quic/quic_connection.hpp"

namespace sluice {

class H3Connection final : public Connection, private QuicApplication {
 public:
  /// Starts the QUIC handshake. A local failure (no socket, bad CA file) is returned;
  /// everything later reaches the owner: on_connection_available once the handshake
  /// completed, on_connection_closed when it ends (close_reason() says why).
  /// `wire_tap`, when set, sees every stream's bytes (H3WireTap), early data too.
  static Result<std::unique_ptr<H3Connection>> connect(
      EventLoop& loop, QuicOptions options, ConnectionOwner& owner, std::uint64_t id,
      const Trace& trace, H3SessionOptions session_options = {},
      std::function<void(const WireChunk&)> wire_tap = {});
  ~H3Connection() override;
  H3Connection(const H3Connection&) = delete;
  H3Connection& operator=(const H3Connection&) = delete;

  HttpVersion version() const noexcept override { return HttpVersion::http3; }
  std::size_t available_streams() const noexcept override;
  bool idle() const noexcept override { return session_->open_streams() == 0; }
  bool was_reused() const noexcept override { return exchanges_ > 0; }
  bool is_closed() const noexcept override { return quic_ == nullptr || quic_->is_closed(); }
  /// The server sent GOAWAY: the streams it kept may finish, no new one starts here.
  /// The pool does not count a draining connection toward its per-origin limit.
  bool draining() const noexcept override { return !is_closed() && session_->goaway_received(); }
  std::optional<std::size_t> served_before_refusal() const noexcept override {
    return session_->served_before_refusal();
  }
  /// Sending 0-RTT early data: only requests safe_for_early_data() may start.
  bool early() const noexcept override { return early_ && !handshake_done_ && !is_closed(); }
  long handshake_verify_result() const noexcept override;
  std::optional<TlsInfo> handshake_tls_info() const override;
  /// The exchange's id is its QUIC stream id.
  ExchangeId start(ExchangeRequest request, ExchangeSink& sink) override;
  void resume(ExchangeId exchange) override;
  /// Resets that stream (H3_REQUEST_CANCELLED); the connection stays up.
  void cancel(ExchangeId exchange) override;
  std::size_t release_scratch(TimePoint paused_before) override;
  std::size_t scratch_bytes() const noexcept override;
  void close(Error error) override;
  /// Before the handshake, its early requests go back unprocessed.
  void abandon(Error error) override;
  std::uint64_t id() const noexcept override { return id_; }

  bool handshake_completed() const noexcept { return handshake_done_; }
  /// The UDP socket's local end.
  const SocketAddress& local_address() const noexcept { return quic_->local_address(); }
  /// Why the connection ended (peer close, handshake failure or timeout, idle timeout,
  /// stateless reset, local close); empty while it is up.
  std::optional<Error> close_reason() const override { return close_reason_; }

 private:
  H3Connection(EventLoop& loop, ConnectionOwner& owner, std::uint64_t id, const Trace& trace,
               H3SessionOptions session_options);

  // QuicApplication: the session's, with the two events the connection itself needs.
  Result<void> on_handshake_completed(QuicStreams& streams) override;
  bool wants_early_data() const override { return true; }
  Result<void> on_early_data_ready(QuicStreams& streams) override;
  void on_early_data_rejected() override;
  Result<std::size_t> on_stream_data(std::int64_t stream_id, std::span<const std::uint8_t> data,
                                     bool fin) override {
    if (tap_) tap_->received(stream_id, data);
    return session_->on_stream_data(stream_id, data, fin);
  }
  void on_stream_acked(std::int64_t stream_id, std::uint64_t n) override {
    session_->on_stream_acked(stream_id, n);
  }
  void on_stream_closed(std::int64_t stream_id, std::optional<std::uint64_t> app_error) override {
    session_->on_stream_closed(stream_id, app_error);
  }
  void on_stream_reset(std::int64_t stream_id, std::uint64_t app_error) override {
    session_->on_stream_reset(stream_id, app_error);
  }
  void on_stop_sending(std::int64_t stream_id, std::uint64_t app_error) override {
    session_->on_stop_sending(stream_id, app_error);
  }
  void on_stream_writable(std::int64_t stream_id) override {
    session_->on_stream_writable(stream_id);
  }
  void on_streams_available() override { session_->on_streams_available(); }
  Result<QuicOutput> next_output(std::span<QuicVec> vecs) override {
    auto output = session_->next_output(vecs);
    if (tap_ && output) tap_->offered(*output, vecs);
    return output;
  }
  Result<void> on_output_written(std::int64_t stream_id, std::size_t n) override {
    if (tap_) tap_->written(stream_id, n);
    return session_->on_output_written(stream_id, n);
  }
  void on_stream_blocked(std::int64_t stream_id) override {
    session_->on_stream_blocked(stream_id);
  }
  void on_connection_closed(const Error& error) override;
  std::optional<TimePoint> next_deadline() const override { return session_->next_deadline(); }
  void on_timer() override { session_->on_timer(); }

  /// After every session change: tell the owner about freed streams or the end.
  void tell_owner();
  OwnerView owner_view() const;

  std::unique_ptr<H3Session> make_session();

  OwnerReports reports_;  // what the owner (the pool) has heard
  std::uint64_t id_;
  EventLoop& loop_;
  const Trace& trace_;
  H3SessionOptions session_options_;
  std::unique_ptr<H3Session> session_;  // replaced when the server refuses early data
  std::unique_ptr<QuicConnection> quic_;
  std::unique_ptr<H3WireTap> tap_;  // only with ClientOptions::wire_tap
  bool handshake_done_ = false;
  bool early_ = false;  // the session was set up for 0-RTT early data
  std::optional<Error> close_reason_;
  std::uint64_t exchanges_ = 0;
};

}  // namespace sluice
