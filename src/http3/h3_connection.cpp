#include "http3/h3_connection.hpp"

#include <algorithm>
#include <utility>

#include "http3/h3_error_names.hpp"

namespace sluice {

Result<std::unique_ptr<H3Connection>> H3Connection::connect(
    EventLoop& loop, QuicOptions options, ConnectionOwner& owner, std::uint64_t id,
    const Trace& trace, H3SessionOptions session_options,
    std::function<void(const WireChunk&)> wire_tap) {
  std::unique_ptr<H3Connection> conn(
      new H3Connection(loop, owner, id, trace, std::move(session_options)));
  // Before the QUIC connection exists: 0-RTT streams may be written inside connect.
  if (wire_tap) conn->tap_ = std::make_unique<H3WireTap>(std::move(wire_tap), id);
  options.app_error_name = &h3_error_name;
  auto quic = QuicConnection::connect(loop, std::move(options), *conn, trace, id);
  if (!quic) return std::move(quic).error();
  conn->quic_ = std::move(*quic);
  return conn;
}

H3Connection::H3Connection(EventLoop& loop, ConnectionOwner& owner, std::uint64_t id,
                           const Trace& trace, H3SessionOptions session_options)
    : reports_(owner),
      id_(id),
      loop_(loop),
      trace_(trace),
      session_options_(std::move(session_options)),
      session_(make_session()) {}

std::unique_ptr<H3Session> H3Connection::make_session() {
  return std::make_unique<H3Session>(trace_, id_, loop_, session_options_,
                                     [this] { tell_owner(); });
}

// The QuicConnection goes first: it may still call into the session while it dies.
H3Connection::~H3Connection() { quic_.reset(); }

std::size_t H3Connection::available_streams() const noexcept {
  if ((!handshake_done_ && !early_) || is_closed()) return 0;
  return session_->available_streams();
}

ExchangeId H3Connection::start(ExchangeRequest request, ExchangeSink& sink) {
  if (available_streams() == 0) {
    // Nothing was sent: another connection may take it.
    sink.on_unprocessed(Error(ErrorCategory::protocol,
                              is_closed() ? "HTTP/3: connection is closed"
                                          : "HTTP/3: connection takes no more streams now"));
    return kNoExchange;
  }
  const bool early = this->early();
  if (early && !safe_for_early_data(request)) {
    sink.on_unprocessed(Error(ErrorCategory::protocol, "HTTP/3: " + request.method +
                                                           " with a body waits for the handshake"));
    return kNoExchange;
  }
  auto submitted = session_->submit(request, sink);
  reports_.started(owner_view());
  if (!submitted) {
    sink.on_unprocessed(std::move(submitted).error());
    return kNoExchange;
  }
  ++exchanges_;  // only a request that went out makes the connection a reused one
  if (early) quic_->codec().count_early_request();
  quic_->request_write();
  return static_cast<ExchangeId>(*submitted);
}

void H3Connection::resume(ExchangeId exchange) {
  if (exchange != kNoExchange) session_->resume_stream(static_cast<std::int64_t>(exchange));
}

void H3Connection::cancel(ExchangeId exchange) {
  if (exchange != kNoExchange) session_->cancel_stream(static_cast<std::int64_t>(exchange));
}

std::size_t H3Connection::release_scratch(TimePoint paused_before) {
  if (session_->receiving_since(paused_before)) return 0;
  std::size_t freed = session_->release_scratch();
  if (quic_) freed += quic_->release_scratch();
  return freed;
}

long H3Connection::handshake_verify_result() const noexcept {
  return quic_ ? quic_->codec().tls_verify_result() : 0;
}

std::optional<TlsInfo> H3Connection::handshake_tls_info() const {
  if (!quic_) return std::nullopt;
  return quic_->codec().tls_info();
}

std::size_t H3Connection::scratch_bytes() const noexcept {
  return session_->scratch_bytes() + (quic_ ? quic_->scratch_bytes() : 0);
}

void H3Connection::abandon(Error error) {
  // The sinks may ask the pool again from inside: available_streams() is 0 by then
  // (the session takes no more), so they wait for what the owner decides next.
  if (!handshake_done_ && !is_closed()) session_->fail_all_unprocessed(error);
  close(std::move(error));
}

void H3Connection::close(Error error) {
  reports_.owner_closed();  // the owner asked; it needs no callback
  if (is_closed()) return;
  if (!close_reason_) close_reason_ = error;
  session_->fail_all(error);
  quic_->close(std::move(error));
}

Result<void> H3Connection::on_handshake_completed(QuicStreams& streams) {
  // After accepted early data the session is up already, and says so.
  auto ready = session_->on_handshake_completed(streams);
  if (!ready) return ready;
  handshake_done_ = true;
  tell_owner();  // the session's own change report came before handshake_done_
  return {};
}

Result<void> H3Connection::on_early_data_ready(QuicStreams& streams) {
  auto ready = session_->on_early_data_ready(streams);
  if (!ready) return ready;
  early_ = true;
  tell_owner();
  return {};
}

// The early streams are gone: their exchanges go again (the pool waits for the
// handshake, then this connection serves them) on a fresh session, since the old
// one's control streams went with them.
void H3Connection::on_early_data_rejected() {
  early_ = false;  // no stream may start until the handshake completed
  std::unique_ptr<H3Session> refused = std::exchange(session_, make_session());
  exchanges_ = 0;  // nothing was processed: not a reused connection
  refused->fail_all_refused_early(
      Error(ErrorCategory::protocol, "HTTP/3: the server refused the 0-RTT early data"));
}

void H3Connection::on_connection_closed(const Error& error) {
  if (!close_reason_) close_reason_ = error;
  // Before the handshake only early requests were out; the server cannot have
  // answered them, and they are safe to send again elsewhere.
  if (!handshake_done_) session_->fail_all_unprocessed(error);
  session_->on_connection_closed(error);
  tell_owner();
}

// A stream slot freed, the server raised its limit, the handshake completed, or the
// connection ended.
void H3Connection::tell_owner() { reports_.tell(*this, owner_view()); }

OwnerView H3Connection::owner_view() const {
  return OwnerView{close_reason_.has_value() || is_closed(), draining(), available_streams(),
                   session_->streams_ended(), early()};
}

}  // namespace sluice
