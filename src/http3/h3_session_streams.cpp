// H3Session, streams: looking them up, ending exchanges, resetting streams, and the
// per-stream credit that is the backpressure (see h3_session.hpp).
//
// Ownership: HTTP thread only.

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "http3/h3_error_names.hpp"
#include "http3/h3_session.hpp"

namespace sluice {

void H3Session::resume_stream(std::int64_t stream_id) {
  Entry entry(*this);
  stream_table_.resume(stream_id, time_.now());
}

void H3Session::cancel_stream(std::int64_t stream_id) {
  Entry entry(*this);
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  if (trace_.on()) trace_stream(stream_id, "cancelled");
  detach(*stream);
  abandon_stream(*stream, NGHTTP3_H3_REQUEST_CANCELLED);
}

std::size_t H3Session::available_streams() const {
  if (!ready() || closed_ || closing_ || goaway_received_ || streams_ == nullptr) return 0;
  const std::uint64_t left = streams_->bidi_streams_left();
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(left, std::numeric_limits<std::size_t>::max()));
}

bool H3Session::can_credit(const H3Stream& stream) const {
  return streams_ != nullptr && !closed_ && !stream.shut;
}

void H3Session::announce_credit(H3Stream& stream, const CreditGrant& grant, std::uint64_t) {
  const std::uint64_t growth = grant.grown_to - grant.grown_from;
  const std::uint64_t taken = grant.bytes - growth;
  if (taken > 0) streams_->extend_stream(stream.stream_id, taken);
  if (growth == 0) {
    // A cut (grant.shrunk_to) is in `taken` already: StreamCredit withheld it.
    if (trace_.on() && taken > 0)
      trace_stream(stream.stream_id, "credit +" + std::to_string(taken));
    if (trace_.on() && grant.shrunk_to != 0) {
      trace_stream(stream.stream_id,
                   "window back to " + window_text(grant.shrunk_to) + " after a long pause");
    }
    return;
  }
  streams_->grow_stream_window(stream.stream_id, growth);
  if (trace_.on()) {
    trace_stream(stream.stream_id, "window " + window_text(grant.grown_from) + " -> " +
                                       window_text(grant.grown_to) + " (rtt " +
                                       rtt_text(streams_->path_rtt()) + ")");
  }
  follow_connection_window();
}

// Connection credit comes back on arrival, so the connection window only bounds what
// is in flight at once: at twice the open streams' windows together it never limits
// them, as over h2. It never shrinks (QUIC cannot take credit back).
void H3Session::follow_connection_window() {
  const std::uint64_t wanted = 2 * stream_table_.live_windows();
  const std::uint64_t now_allowed = options_.connection_window + connection_window_raised_;
  if (wanted <= now_allowed) return;
  streams_->extend_connection_window(wanted - now_allowed);
  connection_window_raised_ += wanted - now_allowed;
  if (trace_.on()) {
    trace_conn("connection window " + window_text(now_allowed) + " -> " + window_text(wanted));
  }
}

std::optional<TimePoint> H3Session::next_deadline() const { return stream_table_.next_deadline(); }

void H3Session::on_timer() {
  Entry entry(*this);
  if (streams_ == nullptr || closed_ || broken_) return;
  stream_table_.on_timer(time_.now());
}

ExchangeSink* H3Session::detach(H3Stream& stream) {
  ExchangeSink* sink = stream.sink;
  if (sink == nullptr) return nullptr;
  stream.sink = nullptr;
  stream.credit.retire();
  // A stale waker finds no body; the no-op keeps the source from calling an empty
  // function, since it may be destroyed right after the sink's event.
  if (stream.body != nullptr) {
    stream.body->set_waker([] {});
    stream.body = nullptr;
  }
  --active_;
  ++streams_ended_;
  changed_ = true;
  return sink;
}

void H3Session::fail_stream(std::int64_t stream_id, Error error, bool abandon) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  if (trace_.on()) trace_stream(stream_id, "failed: " + error.message());
  const bool unprocessed = stream->unprocessed;
  const bool refused_early = stream->refused_early;
  ExchangeSink* sink = detach(*stream);
  if (abandon) abandon_stream(*stream, NGHTTP3_H3_REQUEST_CANCELLED);
  if (refused_early) {
    sink->on_early_data_refused(std::move(error));
  } else if (unprocessed) {
    sink->on_unprocessed(std::move(error));
  } else {
    sink->on_error(std::move(error));
  }
}

void H3Session::abandon_stream(H3Stream& stream, std::uint64_t app_error) {
  if (stream.shut) return;
  stream.shut = true;
  if (stream.body != nullptr) end_body(stream);
  stream.pending_request.reset();
  if (closed_ || streams_ == nullptr) return;
  if (trace_.on()) trace_stream(stream.stream_id, "reset (" + h3_error_name(app_error) + ")");
  streams_->shutdown_stream(stream.stream_id, app_error);
  if (stream.submitted) queue_op(PendingOp::Kind::shut, stream.stream_id);
}

void H3Session::fail_exchanges(const Error& error) {
  std::vector<std::int64_t> ids;
  for (const auto& [stream_id, stream] : stream_table_) {
    if (stream.sink != nullptr) ids.push_back(stream_id);
  }
  std::sort(ids.begin(), ids.end());
  // One at a time: a sink may cancel another stream from inside its event.
  for (std::int64_t stream_id : ids) fail_stream(stream_id, error, false);
}

void H3Session::trace_conn(const std::string& what) const { trace_.emit(conn_id_, "h3", what); }

void H3Session::trace_stream(std::int64_t stream_id, const std::string& what) const {
  trace_.emit(conn_id_, stream_id, "h3", what);
}

}  // namespace sluice
