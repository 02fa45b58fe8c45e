// H2Session, flow control: giving stream credit back by the shared window policy
// (mux/stream_credit.hpp), keeping the connection window ahead of the streams', and
// the PINGs that measure the round-trip time the policy needs (see h2_session.hpp).
//
// Ownership: HTTP thread only.

#include <algorithm>
#include <climits>
#include <cstring>

#include "http2/h2_session.hpp"

namespace sluice {

bool H2Session::can_credit(const H2Stream&) const { return session_ != nullptr && !broken_; }

// What the consumer took goes back as what nghttp2 counts as received and not yet
// announced, less what the consumer holds: that takes along DATA padding (which
// nghttp2 counts against the window and, with automatic updates off, returns only in
// its own half-window steps), and it is never more than nghttp2 owes the server, so a
// window lowered below the protocol's 64 KiB (a small allowance) stays lowered.
// Growth is nghttp2's own local window set to the new size, which sends the
// difference. A cut after a long pause sets it lower first, so that nghttp2 takes the
// cut off what it owes before the increment is read (lowered after, the increment
// would already have given the server the old window again), and the increment is
// then no more than the grant, which paid for the cut.
void H2Session::announce_credit(H2Stream& stream, const CreditGrant& grant, std::uint64_t held) {
  int rv = 0;
  if (grant.shrunk_to != 0) rv = set_stream_window(stream, grant.shrunk_to);
  const std::int32_t unannounced =
      nghttp2_session_get_stream_effective_recv_data_length(session_, stream.stream_id);
  std::uint64_t increment = 0;
  if (rv == 0 && grant.bytes > 0 && unannounced > 0 &&
      static_cast<std::uint64_t>(unannounced) > held) {
    increment = static_cast<std::uint64_t>(unannounced) - held;
    if (grant.shrunk_to != 0) increment = std::min(increment, grant.bytes);
    rv = nghttp2_submit_window_update(session_, NGHTTP2_FLAG_NONE, stream.stream_id,
                                      static_cast<std::int32_t>(increment));
  }
  if (rv == 0 && grant.grown_to != 0) rv = set_stream_window(stream, grant.grown_to);
  if (trace_.on()) trace_credit(stream, grant, increment, rv);
  if (rv == 0 && grant.grown_to != 0) follow_connection_window();
}

int H2Session::set_stream_window(const H2Stream& stream, std::uint64_t window) {
  const auto size = static_cast<std::int32_t>(std::min<std::uint64_t>(window, INT32_MAX));
  return nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, stream.stream_id, size);
}

void H2Session::trace_credit(const H2Stream& stream, const CreditGrant& grant,
                             std::uint64_t increment, int rv) const {
  if (rv != 0) {
    // Out of memory in nghttp2: the credit goes with the next announcement.
    trace_stream(stream.stream_id, std::string("window update: ") + nghttp2_strerror(rv));
    return;
  }
  if (increment > 0) trace_stream(stream.stream_id, "window +" + std::to_string(increment));
  if (grant.grown_to != 0) {
    trace_stream(stream.stream_id, "window " + window_text(grant.grown_from) + " -> " +
                                       window_text(grant.grown_to) + " (rtt " +
                                       rtt_text(rtt_.min()) + ")");
  }
  if (grant.shrunk_to != 0) {
    trace_stream(stream.stream_id,
                 "window back to " + window_text(grant.shrunk_to) + " after a long pause");
  }
}

// Connection credit goes back on arrival, so the connection window only bounds what
// is in flight at once; at twice the streams' windows together it never limits them
// (nghttp2 announces it in half-window steps).
void H2Session::follow_connection_window() {
  const std::uint64_t wanted = std::min<std::uint64_t>(2 * streams_.live_windows(), INT32_MAX);
  if (wanted <= static_cast<std::uint64_t>(connection_window_)) return;
  const int rv = nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                                       static_cast<std::int32_t>(wanted));
  if (rv != 0) return;  // the old window still works, only slower
  if (trace_.on()) {
    trace_conn("connection window " + window_text(static_cast<std::uint64_t>(connection_window_)) +
               " -> " + window_text(wanted));
  }
  connection_window_ = static_cast<std::int32_t>(wanted);
}

std::optional<TimePoint> H2Session::next_deadline() const { return streams_.next_deadline(); }

void H2Session::on_timer() {
  if (session_ == nullptr || broken_ || in_library_) return;
  streams_.on_timer(time_.now());
}

// PING payloads carry a sequence number, so an acknowledgement finds its send time.
Result<void> H2Session::submit_ping(bool liveness) {
  const std::uint64_t sequence = ++pings_sent_;
  std::uint8_t payload[8];
  std::memcpy(payload, &sequence, sizeof payload);
  const int rv = nghttp2_submit_ping(session_, NGHTTP2_FLAG_NONE, payload);
  if (rv != 0) return fatal_error(rv, "sending PING");
  if (liveness) {
    liveness_ping_ = sequence;
    liveness_sent_at_ = time_.now();
  } else {
    probe_ping_ = sequence;
    probe_sent_at_ = time_.now();
  }
  return {};
}

void H2Session::on_ping_ack(const nghttp2_frame& frame) {
  std::uint64_t sequence = 0;
  std::memcpy(&sequence, frame.ping.opaque_data, sizeof sequence);
  const TimePoint now = time_.now();
  if (sequence != 0 && sequence == probe_ping_) {
    probe_ping_ = 0;
    rtt_.add(now - probe_sent_at_);
  } else if (sequence != 0 && sequence == liveness_ping_) {
    liveness_ping_ = 0;
    rtt_.add(now - liveness_sent_at_);
  } else {
    return;  // not ours (or a stale one): no sample
  }
  if (trace_.on())
    trace_conn("rtt " + rtt_text(rtt_.latest()) + " (min " + rtt_text(rtt_.min()) + ")");
}

// More samples while bytes arrive: two more at once (a first one taken while the
// server was still setting up the connection can be far above the path's delay),
// then one now and then.
void H2Session::maybe_probe_rtt(TimePoint now) {
  if (probe_ping_ != 0 || closing_ || broken_) return;
  if (rtt_.samples() >= options_.early_rtt_samples &&
      now - probe_sent_at_ < options_.rtt_probe_interval) {
    return;
  }
  (void)submit_ping(false);  // a failure here is nghttp2 out of memory: noted, harmless
}

}  // namespace sluice
