#include "http3/h3_connection.hpp"

#include <algorithm>
#include <utility>

#include "http3/h3_error_names.hpp"

namespace sluice {

Result<std::unique_ptr<H3Connection>> H3Connection::connect(EventLoop& loop, QuicOptions options,
                                                             ConnectionOwner& owner,
                                                             std::uint64_t id, const Trace& trace,
                                                             H3SessionOptions session_options) {
  std::unique_ptr<H3Connection> conn(
      new H3Connection(loop, owner, id, trace, std::move(session_options)));
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
      session_(trace, id, loop, std::move(session_options), [this] { tell_owner(); }) {}

// The QuicConnection goes first: it may still call into the session while it dies.
H3Connection::~H3Connection() { quic_.reset(); }

std::size_t H3Connection::available_streams() const noexcept {
  if (!handshake_done_ || is_closed()) return 0;
  return session_.available_streams();
}

ExchangeId H3Connection::start(ExchangeRequest request, ExchangeSink& sink) {
  if (available_streams() == 0) {
    // Nothing was sent: another connection may take it.
    sink.on_unprocessed(Error(ErrorCategory::protocol,
                              is_closed() ? "HTTP/3: connection is closed"
                                          : "HTTP/3: connection takes no more streams now"));
    return kNoExchange;
  }
  auto submitted = session_.submit(request, sink);
  reports_.started(owner_view());
  if (!submitted) {
    sink.on_unprocessed(std::move(submitted).error());
    return kNoExchange;
  }
  ++exchanges_;  // only a request that went out makes the connection a reused one
  quic_->request_write();
  return static_cast<ExchangeId>(*submitted);
}

void H3Connection::resume(ExchangeId exchange) {
  if (exchange != kNoExchange) session_.resume_stream(static_cast<std::int64_t>(exchange));
}

void H3Connection::cancel(ExchangeId exchange) {
  if (exchange != kNoExchange) session_.cancel_stream(static_cast<std::int64_t>(exchange));
}

std::size_t H3Connection::release_scratch(TimePoint paused_before) {
  if (session_.receiving_since(paused_before)) return 0;
  std::size_t freed = session_.release_scratch();
  if (quic_) freed += quic_->release_scratch();
  return freed;
}

std::size_t H3Connection::scratch_bytes() const noexcept {
  return session_.scratch_bytes() + (quic_ ? quic_->scratch_bytes() : 0);
}

void H3Connection::close(Error error) {
  reports_.owner_closed();  // the owner asked; it needs no callback
  if (is_closed()) return;
  if (!close_reason_) close_reason_ = error;
  session_.fail_all(error);
  quic_->close(std::move(error));
}

Result<void> H3Connection::on_handshake_completed(QuicStreams& streams) {
  auto ready = session_.on_handshake_completed(streams);
  if (!ready) return ready;
  handshake_done_ = true;
  tell_owner();  // the session's own change report came before handshake_done_
  return ready;
}

void H3Connection::on_connection_closed(const Error& error) {
  if (!close_reason_) close_reason_ = error;
  session_.on_connection_closed(error);
  tell_owner();
}

// A stream slot freed, the server raised its limit, the handshake completed, or the
// connection ended.
void H3Connection::tell_owner() { reports_.tell(*this, owner_view()); }

OwnerView H3Connection::owner_view() const {
  return OwnerView{close_reason_.has_value() || is_closed(), draining(), available_streams(),
                   session_.streams_ended()};
}

}  // namespace sluice
