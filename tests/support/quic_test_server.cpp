// QuicTestServer: accepting the one connection, reading and writing its packets,
// its timer and closing it (see quic_test_server.hpp). ngtcp2's callbacks live in
// quic_test_server_callbacks.cpp, the HTTP/3 side in quic_test_server_h3.cpp.
//
// Ownership: the owner's thread only.

#include "support/quic_test_server.hpp"

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2.h>

#include <algorithm>
#include <array>
#include <utility>

#include "quic/quic_clock.hpp"
#include "support/quic_test_server_h3.hpp"
#include "support/quic_test_server_tls.hpp"

namespace sluice::test {
namespace {

// Every connection ID of ours has this length, so short headers can be matched.
constexpr std::size_t kCidLength = 18;
// Stream data pieces per packet.
constexpr std::size_t kMaxVecs = 16;
// Bounds on one send(): ngtcp2 calls (a blocked stream costs one), and packets
// (ngtcp2's send quantum usually says fewer; pacing then sets the next expiry).
constexpr int kMaxWriteCalls = 4096;
constexpr std::size_t kMaxPacketsPerSend = 64;

QuicServerTlsSettings tls_settings_of(const QuicTestServerOptions& options) {
  QuicServerTlsSettings settings;
  settings.cert_file = options.cert_file;
  settings.key_file = options.key_file;
  settings.session_tickets = options.session_tickets;
  settings.accept_early_data = options.accept_early_data;
  settings.assumed_stream_window = options.assumed_client_stream_window;
  return settings;
}

ngtcp2_transport_params transport_params(const QuicTestTransport& transport) {
  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  params.initial_max_stream_data_bidi_local = transport.stream_window;
  params.initial_max_stream_data_bidi_remote = transport.stream_window;
  params.initial_max_stream_data_uni = transport.uni_stream_window;
  params.initial_max_data = transport.connection_window;
  params.initial_max_streams_bidi = transport.max_bidi_streams;
  params.initial_max_streams_uni = transport.max_uni_streams;
  params.max_idle_timeout = quic_duration(transport.idle_timeout);
  return params;
}

ngtcp2_addr addr_of(SocketAddress& address) {
  return {reinterpret_cast<ngtcp2_sockaddr*>(&address.storage), address.length};
}

// What an answer asked for: an HTTP/3 (application) or a QUIC (transport) close.
// The reason points into `close`, which outlives the frame's writing.
ngtcp2_connection_close_error close_error_of(const QuicTestCloseError& close) {
  ngtcp2_connection_close_error error;
  ngtcp2_connection_close_error_default(&error);
  auto* reason = reinterpret_cast<const std::uint8_t*>(close.reason.data());
  if (close.application) {
    ngtcp2_connection_close_error_set_application_error(&error, close.code, reason,
                                                        close.reason.size());
  } else {
    ngtcp2_connection_close_error_set_transport_error(&error, close.code, reason,
                                                      close.reason.size());
  }
  return error;
}

ngtcp2_connection_close_error application_close(std::uint64_t app_error) {
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  ngtcp2_connection_close_error_set_application_error(&close, app_error, nullptr, 0);
  return close;
}

bool same_bytes(const std::uint8_t* data, std::size_t length, std::span<const std::uint8_t> other) {
  return std::equal(data, data + length, other.begin(), other.end());
}

}  // namespace

QuicTestServer::QuicTestServer(QuicTestServerOptions options) : options_(std::move(options)) {}

QuicTestServer::~QuicTestServer() {
  h3_.reset();  // nghttp3 first: it holds the ngtcp2 connection
  if (conn_ != nullptr) ngtcp2_conn_del(conn_);
  tls_.reset();  // last: the connection pointed at its session
}

bool QuicTestServer::is_connection_start(std::span<const std::uint8_t> datagram) {
  return ngtcp2_accept(nullptr, datagram.data(), datagram.size()) == 0;
}

const std::vector<QuicTestRequest>& QuicTestServer::requests() const {
  static const std::vector<QuicTestRequest> none;
  return h3_ ? h3_->requests() : none;
}

void QuicTestServer::note(std::string what) noexcept {
  try {
    if (error_.empty()) error_ = std::move(what);
  } catch (...) {
    // Out of memory: the first error stays unknown, the connection still closes.
  }
}

void QuicTestServer::receive(std::span<const std::uint8_t> datagram, TimePoint now) {
  if (h3_ && h3_->forgotten()) {
    answer_with_stateless_reset(datagram);
    return;
  }
  if (silent()) {
    ++datagrams_ignored_;
    return;
  }
  switch (state_) {
    case State::waiting:
      if (!accept(datagram, now)) {
        ++datagrams_ignored_;
        return;
      }
      break;
    case State::open:
      if (!addressed_to_us(datagram)) {
        ++datagrams_ignored_;
        return;
      }
      break;
    case State::closing:
      // RFC 9000 section 10.2.1: what still arrives is answered with the close.
      if (!close_packet_.empty()) queued_.push_back(close_packet_);
      return;
    case State::draining:
    case State::gone: return;
  }
  const ngtcp2_path path{addr_of(options_.server_address), addr_of(options_.client_address),
                         nullptr};
  ngtcp2_pkt_info info{};
  const int rv = ngtcp2_conn_read_pkt(conn_, &path, &info, datagram.data(), datagram.size(),
                                      quic_timestamp_of(now));
  if (rv != 0) {
    after_read_error(rv, now);
    return;
  }
  answer_requests(now);
}

// RFC 9000 section 10.3: random bits, then the token of the ID the datagram names;
// shorter than the datagram so two endpoints never loop on resets.
void QuicTestServer::answer_with_stateless_reset(std::span<const std::uint8_t> datagram) {
  ngtcp2_version_cid ids{};
  if (ngtcp2_pkt_decode_version_cid(&ids, datagram.data(), datagram.size(), kCidLength) != 0)
    return;
  auto token = reset_tokens_.find(std::vector<std::uint8_t>(ids.dcid, ids.dcid + ids.dcidlen));
  const std::size_t size = std::min<std::size_t>(datagram.size() - 1, 43);
  if (token == reset_tokens_.end() || size < NGTCP2_MIN_STATELESS_RESET_RANDLEN + 17) {
    ++datagrams_ignored_;
    return;
  }
  std::vector<std::uint8_t> random(size - NGTCP2_STATELESS_RESET_TOKENLEN);
  std::vector<std::uint8_t> packet(size);
  const ngtcp2_ssize n =
      (gnutls_rnd(GNUTLS_RND_NONCE, random.data(), random.size()) != 0)
          ? -1
          : ngtcp2_pkt_write_stateless_reset(packet.data(), packet.size(), token->second.data(),
                                             random.data(), random.size());
  if (n <= 0) {
    note("QuicTestServer: cannot write a stateless reset");
    return;
  }
  packet.resize(static_cast<std::size_t>(n));
  queued_.push_back(std::move(packet));
}

bool QuicTestServer::goaway_sent() const {
  return goaway_wanted_ || (h3_ != nullptr && h3_->goaway_sent());
}

bool QuicTestServer::silent() const { return h3_ != nullptr && h3_->silent(); }

std::uint64_t QuicTestServer::cut_head_bytes_acked() const {
  return h3_ ? h3_->cut_head_bytes_acked() : 0;
}

bool QuicTestServer::resumed() const { return tls_ != nullptr && tls_->resumed(); }

bool QuicTestServer::early_data_accepted() const {
  return tls_ != nullptr && tls_->early_data_accepted();
}

bool QuicTestServer::accept(std::span<const std::uint8_t> datagram, TimePoint now) {
  ngtcp2_pkt_hd header{};
  if (ngtcp2_accept(&header, datagram.data(), datagram.size()) != 0) return false;
  auto tls = QuicServerTls::create(tls_settings_of(options_));
  ngtcp2_cid scid{};
  scid.datalen = kCidLength;
  if (!tls || gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, kCidLength) != 0) {
    note(tls ? "QuicTestServer: no random bytes for a connection ID" : tls.error().message());
    state_ = State::gone;
    return false;
  }
  tls_ = std::move(tls).value();
  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  settings.initial_ts = quic_timestamp_of(now);
  // No window auto-tuning: the windows stay what the options say.
  settings.max_window = 0;
  settings.max_stream_window = 0;
  ngtcp2_transport_params params = transport_params(options_.transport);
  params.original_dcid = header.dcid;
  std::vector<std::uint8_t> token(NGTCP2_STATELESS_RESET_TOKENLEN);
  if (gnutls_rnd(GNUTLS_RND_RANDOM, token.data(), token.size()) != 0) {
    note("QuicTestServer: no random bytes for a stateless reset token");
    state_ = State::gone;
    return false;
  }
  std::copy(token.begin(), token.end(), params.stateless_reset_token);
  params.stateless_reset_token_present = 1;
  reset_tokens_.insert_or_assign(std::vector<std::uint8_t>(scid.data, scid.data + kCidLength),
                                 std::move(token));
  const ngtcp2_path path{addr_of(options_.server_address), addr_of(options_.client_address),
                         nullptr};
  const int rv = ngtcp2_conn_server_new(&conn_, &header.scid, &scid, &path, header.version,
                                        &callbacks(), &settings, &params, nullptr, this);
  if (rv != 0) {
    conn_ = nullptr;
    note(std::string("QuicTestServer: cannot create the connection: ") + ngtcp2_strerror(rv));
    state_ = State::gone;
    return false;
  }
  tls_->attach(conn_);
  original_dcid_.assign(header.dcid.data, header.dcid.data + header.dcid.datalen);
  state_ = State::open;
  return true;
}

// The client addresses our connection IDs, or, until it heard from us, the one it
// chose for its first Initial.
bool QuicTestServer::addressed_to_us(std::span<const std::uint8_t> datagram) const {
  ngtcp2_version_cid ids{};
  if (ngtcp2_pkt_decode_version_cid(&ids, datagram.data(), datagram.size(), kCidLength) != 0)
    return false;
  if (same_bytes(ids.dcid, ids.dcidlen, original_dcid_)) return true;
  std::vector<ngtcp2_cid> ours(ngtcp2_conn_get_num_scid(conn_));
  ngtcp2_conn_get_scid(conn_, ours.data());
  return std::any_of(ours.begin(), ours.end(), [&](const ngtcp2_cid& cid) {
    return same_bytes(ids.dcid, ids.dcidlen, {cid.data, cid.datalen});
  });
}

void QuicTestServer::after_read_error(int liberr, TimePoint now) {
  switch (liberr) {
    case NGTCP2_ERR_DRAINING: {  // the client closed: nothing more may be sent
      ngtcp2_connection_close_error close;
      ngtcp2_conn_get_connection_close_error(conn_, &close);
      client_close_ = QuicTestCloseError{
          close.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION, close.error_code,
          std::string(reinterpret_cast<const char*>(close.reason), close.reasonlen)};
      state_ = State::draining;
      return;
    }
    case NGTCP2_ERR_DROP_CONN:
    case NGTCP2_ERR_RETRY:
      note(std::string("QuicTestServer: ngtcp2 dropped the connection: ") +
           ngtcp2_strerror(liberr));
      state_ = State::gone;
      return;
    case NGTCP2_ERR_CRYPTO: {
      const std::uint8_t alert = ngtcp2_conn_get_tls_alert(conn_);
      note("QuicTestServer: the TLS handshake failed (TLS alert " + std::to_string(alert) + ")");
      ngtcp2_connection_close_error close;
      ngtcp2_connection_close_error_default(&close);
      ngtcp2_connection_close_error_set_transport_error_tls_alert(&close, alert, nullptr, 0);
      write_close(close, now);
      return;
    }
    default: close_after_library_error(liberr, now);
  }
}

void QuicTestServer::answer_requests(TimePoint now) {
  if (!h3_ || state_ != State::open) return;
  auto answered = h3_->answer_requests();
  if (!answered) {
    note(answered.error().message());
    close(h3_->failure_code(), now);
  } else if (*answered) {
    write_close(close_error_of(**answered), now);
  }
}

std::vector<std::vector<std::uint8_t>> QuicTestServer::send(TimePoint now) {
  if (silent()) return {};
  if (h3_ && h3_->forgotten()) return std::exchange(queued_, {});  // only the resets
  std::vector<std::vector<std::uint8_t>> out = std::exchange(queued_, {});
  if (state_ == State::open) {
    if (h3_) h3_->apply_due_resets();
    write_packets(now, out);
  }
  // A close written meanwhile goes last.
  for (auto& datagram : std::exchange(queued_, {})) out.push_back(std::move(datagram));
  for (const auto& datagram : out) bytes_sent_ += datagram.size();
  return out;
}

void QuicTestServer::write_packets(TimePoint now, std::vector<std::vector<std::uint8_t>>& out) {
  const std::size_t max_size = ngtcp2_conn_get_max_tx_udp_payload_size(conn_);
  const std::size_t max_packets = std::clamp<std::size_t>(
      ngtcp2_conn_get_send_quantum(conn_) / max_size, 1, kMaxPacketsPerSend);
  std::vector<std::uint8_t> packet(max_size);
  std::size_t packets = 0;
  for (int calls = 0; calls < kMaxWriteCalls && packets < max_packets && state_ == State::open;
       ++calls) {
    const std::optional<std::size_t> written = write_one(packet.data(), packet.size(), now);
    if (!written) continue;    // a stream was blocked or shut, or a packet is still open
    if (*written == 0) break;  // nothing more now (congestion, pacing or no data)
    out.emplace_back(packet.begin(), packet.begin() + static_cast<std::ptrdiff_t>(*written));
    ++packets;
  }
  if (state_ == State::open) ngtcp2_conn_update_pkt_tx_time(conn_, quic_timestamp_of(now));
}

// One ngtcp2 write fed by nghttp3: the packet's size (0: nothing to send now), or
// nullopt to be called again. A fatal error closes the connection (then 0).
std::optional<std::size_t> QuicTestServer::write_one(std::uint8_t* dest, std::size_t size,
                                                     TimePoint now) {
  std::array<nghttp3_vec, kMaxVecs> h3_vecs{};
  H3ServerSession::Output output;
  if (h3_ && ngtcp2_conn_get_max_data_left(conn_) > 0) {
    auto next = h3_->next_output(h3_vecs);
    if (!next) return fail_h3(next.error(), now);
    output = *next;
  }
  std::array<ngtcp2_vec, kMaxVecs> vecs{};
  for (std::size_t i = 0; i < output.count; ++i) vecs[i] = {h3_vecs[i].base, h3_vecs[i].len};
  std::uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
  if (output.fin) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
  ngtcp2_ssize datalen = -1;
  ngtcp2_pkt_info info{};
  const ngtcp2_ssize rv = ngtcp2_conn_writev_stream(conn_, nullptr, &info, dest, size, &datalen,
                                                    flags, output.stream_id, vecs.data(),
                                                    output.count, quic_timestamp_of(now));
  if (rv < 0) {
    switch (rv) {
      case NGTCP2_ERR_STREAM_DATA_BLOCKED: h3_->blocked(output.stream_id); return std::nullopt;
      case NGTCP2_ERR_STREAM_SHUT_WR:  // the client's STOP_SENDING, or our reset
      case NGTCP2_ERR_STREAM_NOT_FOUND: h3_->shut_write(output.stream_id); return std::nullopt;
      case NGTCP2_ERR_WRITE_MORE:  // the packet has room for more streams
        if (auto taken = h3_->written(output.stream_id, static_cast<std::size_t>(datalen)); !taken)
          return fail_h3(taken.error(), now);
        return std::nullopt;
      default: close_after_library_error(static_cast<int>(rv), now); return 0;
    }
  }
  if (datalen >= 0) {
    if (auto taken = h3_->written(output.stream_id, static_cast<std::size_t>(datalen)); !taken)
      return fail_h3(taken.error(), now);
  }
  return static_cast<std::size_t>(rv);
}

std::size_t QuicTestServer::fail_h3(const Error& error, TimePoint now) {
  note(error.message());
  close(h3_->failure_code(), now);
  return 0;
}

std::optional<TimePoint> QuicTestServer::next_expiry() const {
  if (state_ != State::open || silent() || (h3_ && h3_->forgotten())) return std::nullopt;
  const ngtcp2_tstamp expiry = ngtcp2_conn_get_expiry(conn_);
  if (expiry == UINT64_MAX) return std::nullopt;
  return quic_time_point(expiry);
}

void QuicTestServer::on_expiry(TimePoint now) {
  if (state_ != State::open) return;
  const int rv = ngtcp2_conn_handle_expiry(conn_, quic_timestamp_of(now));
  if (rv == 0) return;
  if (rv == NGTCP2_ERR_IDLE_CLOSE) {
    state_ = State::gone;  // an idle connection goes silently (RFC 9000 section 10.1)
    return;
  }
  close_after_library_error(rv, now);
}

void QuicTestServer::close(std::uint64_t app_error, TimePoint now) {
  write_close(application_close(app_error), now);
}

void QuicTestServer::close_after_library_error(int liberr, TimePoint now) {
  note(std::string("QuicTestServer: ngtcp2 failed: ") + ngtcp2_strerror(liberr));
  if (liberr == NGTCP2_ERR_CALLBACK_FAILURE && h3_) {
    write_close(application_close(h3_->failure_code()), now);
    return;
  }
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  ngtcp2_connection_close_error_set_transport_error_liberr(&close, liberr, nullptr, 0);
  write_close(close, now);
}

void QuicTestServer::write_close(const ngtcp2_connection_close_error& close, TimePoint now) {
  if (state_ != State::open) return;
  state_ = State::closing;
  std::vector<std::uint8_t> packet(std::max<std::size_t>(
      ngtcp2_conn_get_max_tx_udp_payload_size(conn_), NGTCP2_MAX_UDP_PAYLOAD_SIZE));
  ngtcp2_pkt_info info{};
  const ngtcp2_ssize n = ngtcp2_conn_write_connection_close(
      conn_, nullptr, &info, packet.data(), packet.size(), &close, quic_timestamp_of(now));
  if (n < 0)
    note(std::string("QuicTestServer: cannot write CONNECTION_CLOSE: ") +
         ngtcp2_strerror(static_cast<int>(n)));
  if (n <= 0) return;
  packet.resize(static_cast<std::size_t>(n));
  close_packet_ = packet;
  queued_.push_back(std::move(packet));
}

bool QuicTestServer::start_h3() {
  if (h3_) return true;
  auto session = std::make_unique<H3ServerSession>(conn_, options_.handler, options_.stop_sending,
                                                   options_.goaway_plan);
  auto started = session->start(options_.transport.max_bidi_streams);
  if (!started) {
    note(started.error().message());
    return false;
  }
  h3_ = std::move(session);
  if (goaway_wanted_) goaway();
  return true;
}

void QuicTestServer::goaway() {
  goaway_wanted_ = true;
  if (!h3_) return;  // start_h3 sends it
  if (auto sent = h3_->goaway(); !sent) note(sent.error().message());
}

}  // namespace sluice::test
