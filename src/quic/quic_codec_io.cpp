// QuicCodec: datagrams into ngtcp2, and its packets into the carrier's batch (see
// quic_codec.hpp).
//
// Ownership: HTTP thread only.

#include <algorithm>
#include <array>

#include "quic/quic_clock.hpp"
#include "quic/quic_codec.hpp"
#include "quic/quic_errors.hpp"

namespace sluice {
namespace {

// Stream data pieces taken from the application per packet.
constexpr std::size_t kMaxVecs = 16;
// ngtcp2 calls per write before yielding; bounds the loop should an application
// keep offering a stream that cannot be written.
constexpr int kMaxWriteCalls = 1024;

}  // namespace

// ---- reading ----------------------------------------------------------------

void QuicCodec::on_datagram(std::span<const std::uint8_t> datagram, TimePoint now) {
  if (state_ == State::closed) return;
  const ngtcp2_path read_path = ngtcp2_path_of();
  ngtcp2_pkt_info info{};
  stateless_reset_ = false;
  ++ngtcp2_depth_;
  const int rv = ngtcp2_conn_read_pkt(conn_, &read_path, &info, datagram.data(), datagram.size(),
                                      quic_timestamp_of(now));
  --ngtcp2_depth_;
  if (rv != 0 || failure_) terminate(read_failure(rv));
}

QuicCodec::Failure QuicCodec::read_failure(int liberr) {
  if (failure_) {
    Failure failure = std::move(*failure_);
    failure_.reset();
    return failure;
  }
  switch (liberr) {
    case NGTCP2_ERR_DRAINING: {
      // The peer closed (or reset) the connection: nothing may be sent any more.
      if (stateless_reset_) return {quic_stateless_reset_error(options_.host), std::nullopt};
      ngtcp2_connection_close_error close;
      ngtcp2_conn_get_connection_close_error(conn_, &close);
      return {quic_peer_close_error(close, options_.host, handshake_done_, options_.app_error_name),
              std::nullopt};
    }
    case NGTCP2_ERR_CRYPTO: {
      const std::uint8_t alert = ngtcp2_conn_get_tls_alert(conn_);
      return {tls_->handshake_error(alert), quic_tls_alert_close(alert)};
    }
    case NGTCP2_ERR_IDLE_CLOSE:
      return {quic_idle_timeout_error(peer_, effective_idle_timeout(), handshake_done_),
              std::nullopt};
    case NGTCP2_ERR_RECV_VERSION_NEGOTIATION:
    case NGTCP2_ERR_DROP_CONN:
    case NGTCP2_ERR_CLOSING: return {quic_library_error(liberr, options_.host), std::nullopt};
    default: return {quic_library_error(liberr, options_.host), quic_library_close(liberr)};
  }
}

QuicCodec::Failure QuicCodec::expiry_failure(int liberr) {
  if (failure_) {
    Failure failure = std::move(*failure_);
    failure_.reset();
    return failure;
  }
  // An idle connection goes silently (RFC 9000 section 10.1).
  if (liberr == NGTCP2_ERR_IDLE_CLOSE)
    return {quic_idle_timeout_error(peer_, effective_idle_timeout(), handshake_done_),
            std::nullopt};
  if (liberr == NGTCP2_ERR_HANDSHAKE_TIMEOUT)
    return {quic_handshake_timeout_error(peer_, options_.handshake_timeout),
            quic_library_close(liberr)};
  return {quic_library_error(liberr, options_.host), quic_library_close(liberr)};
}

// ---- writing ----------------------------------------------------------------

// At most a send quantum of packets per call (the batch groups them into runs for
// GSO); ngtcp2's pacing then sets the deadline for the next.
void QuicCodec::write_datagrams(DatagramBatch& batch, TimePoint now) {
  if (act_on_failure() || state_ == State::closed) return;
  start_early_application();
  if (act_on_failure() || state_ == State::closed) return;
  const ngtcp2_tstamp ts = quic_timestamp_of(now);
  const std::size_t max_size = ngtcp2_conn_get_max_tx_udp_payload_size(conn_);
  batch.begin(std::clamp<std::size_t>(ngtcp2_conn_get_send_quantum(conn_) / max_size, 1,
                                      UdpSocket::kMaxBatch),
              max_size);
  for (int calls = 0; calls < kMaxWriteCalls; ++calls) {
    const std::span<std::uint8_t> slot = batch.next_slot();
    if (slot.empty()) break;
    const std::optional<std::size_t> written = write_one(slot, ts);
    if (state_ == State::closed) return;
    if (!written) continue;
    if (*written == 0) break;
    batch.commit(*written);
  }
  ngtcp2_conn_update_pkt_tx_time(conn_, ts);
}

// One ngtcp2 write with the application's next stream data: the size of the packet
// written at `dest` (0: nothing to send now), or nullopt to be called again (a
// stream was blocked, shut or partly written into a packet still open). A fatal
// error closes the connection.
std::optional<std::size_t> QuicCodec::write_one(std::span<std::uint8_t> dest, ngtcp2_tstamp ts) {
  std::array<QuicVec, kMaxVecs> vecs{};
  QuicOutput output;
  if (app_started_ && ngtcp2_conn_get_max_data_left(conn_) > 0) {
    auto next = app_.next_output(vecs);
    if (state_ == State::closed) return std::nullopt;
    if (!next) {
      fail_from_application(std::move(next).error(), kH3InternalError);
      return std::nullopt;
    }
    output = *next;
  }
  std::array<ngtcp2_vec, kMaxVecs> data{};
  const std::size_t count = output.stream_id >= 0 ? std::min(output.count, kMaxVecs) : 0;
  for (std::size_t i = 0; i < count; ++i)
    data[i] = {const_cast<std::uint8_t*>(vecs[i].base), vecs[i].len};
  std::uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
  if (output.stream_id >= 0 && output.fin) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
  ngtcp2_ssize datalen = -1;
  ngtcp2_pkt_info info{};
  ++ngtcp2_depth_;
  const ngtcp2_ssize rv =
      ngtcp2_conn_writev_stream(conn_, nullptr, &info, dest.data(), dest.size(), &datalen, flags,
                                output.stream_id, data.data(), count, ts);
  --ngtcp2_depth_;
  if (rv < 0) return after_write_error(rv, output.stream_id, datalen);
  coalescing_ = false;
  if (output.stream_id >= 0 && datalen >= 0 && !output_written(output.stream_id, datalen))
    return std::nullopt;
  apply_deferred();
  requeue_credit();
  return static_cast<std::size_t>(rv);
}

std::optional<std::size_t> QuicCodec::after_write_error(ngtcp2_ssize rv, std::int64_t stream_id,
                                                        ngtcp2_ssize datalen) {
  switch (rv) {
    case NGTCP2_ERR_WRITE_MORE:
      coalescing_ = true;
      (void)output_written(stream_id, datalen);
      return std::nullopt;
    case NGTCP2_ERR_STREAM_DATA_BLOCKED:
      coalescing_ = true;
      app_.on_stream_blocked(stream_id);
      return std::nullopt;
    case NGTCP2_ERR_STREAM_SHUT_WR:
      // The peer's STOP_SENDING reset it (ngtcp2 0.12 reports nothing else), or we
      // did: either way the application must stop offering it.
      coalescing_ = true;
      app_.on_stop_sending(stream_id, kH3NoError);
      return std::nullopt;
    case NGTCP2_ERR_STREAM_NOT_FOUND:
      coalescing_ = true;
      app_.on_stream_blocked(stream_id);  // gone already: skip it from now on
      return std::nullopt;
    default:
      coalescing_ = false;
      if (!act_on_failure()) {
        terminate(Failure{quic_library_error(static_cast<int>(rv), options_.host),
                          quic_library_close(static_cast<int>(rv))});
      }
      return std::nullopt;
  }
}

// Returns false once the connection is closed.
bool QuicCodec::output_written(std::int64_t stream_id, ngtcp2_ssize datalen) {
  auto done = app_.on_output_written(stream_id, static_cast<std::size_t>(datalen));
  if (state_ == State::closed) return false;
  if (!done) {
    fail_from_application(std::move(done).error(), kH3InternalError);
    return false;
  }
  return true;
}

}  // namespace sluice
