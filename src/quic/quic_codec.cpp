// QuicCodec: setup, the stream calls of the seam, deadlines and closing (see
// quic_codec.hpp). Reading and writing packets live in quic_codec_io.cpp, ngtcp2's
// callbacks in quic_callbacks.cpp.
//
// Ownership: HTTP thread only.

#include "quic/quic_codec.hpp"

#include <arpa/inet.h>
#include <gnutls/crypto.h>

#include <algorithm>
#include <utility>

#include "quic/quic_clock.hpp"
#include "quic/quic_errors.hpp"

namespace sluice {
namespace {

constexpr std::size_t kSourceCidLength = 16;
constexpr std::size_t kDestinationCidLength = 18;

std::uint16_t port_of(const SocketAddress& address) {
  if (address.storage.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6&>(address.storage).sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in&>(address.storage).sin_port);
}

Result<ngtcp2_cid> random_cid(std::size_t length) {
  ngtcp2_cid cid{};
  cid.datalen = length;
  if (gnutls_rnd(GNUTLS_RND_RANDOM, cid.data, length) != 0)
    return Error(ErrorCategory::io, "QUIC: no random bytes for a connection ID");
  return cid;
}

// What we tell the server it may send: the windows and limits of the options.
ngtcp2_transport_params transport_params(const QuicOptions& options) {
  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  params.initial_max_stream_data_bidi_local = options.stream_window;
  params.initial_max_stream_data_bidi_remote = 0;  // HTTP/3 servers open no bidi streams
  params.initial_max_stream_data_uni = options.uni_stream_window;
  params.initial_max_data = options.connection_window;
  params.initial_max_streams_bidi = 0;
  params.initial_max_streams_uni = options.max_uni_streams;
  params.max_idle_timeout = quic_duration(options.idle_timeout);
  params.max_udp_payload_size = UdpSocket::kMaxDatagram;
  return params;
}

}  // namespace

Result<std::unique_ptr<QuicCodec>> QuicCodec::create(QuicOptions options, Path path,
                                                     DatagramPort& port, QuicApplication& app,
                                                     const Trace& trace, std::uint64_t conn_id) {
  if (!options.tls_context) {
    auto context = QuicTlsContext::create(options.ca_file, options.insecure);
    if (!context) return std::move(context).error();
    options.tls_context = std::move(context).value();
  }
  auto tls = QuicTls::create(options.tls_context, options.host, port_of(path.remote));
  if (!tls) return std::move(tls).error();
  std::unique_ptr<QuicCodec> codec(new QuicCodec(std::move(options), std::move(path), port, app,
                                                 trace, conn_id, std::move(tls).value()));
  auto started = codec->start();
  if (!started) return std::move(started).error();
  return codec;
}

QuicCodec::QuicCodec(QuicOptions options, Path path, DatagramPort& port, QuicApplication& app,
                     const Trace& trace, std::uint64_t conn_id, std::unique_ptr<QuicTls> tls)
    : options_(std::move(options)),
      path_(std::move(path)),
      port_(port),
      app_(app),
      trace_(trace),
      id_(conn_id),
      peer_(options_.host + ":" + std::to_string(port_of(path_.remote))),
      tls_(std::move(tls)) {}

QuicCodec::~QuicCodec() {
  if (conn_ != nullptr) ngtcp2_conn_del(conn_);  // before the TLS session it points to
  tls_.reset();
}

ngtcp2_path QuicCodec::ngtcp2_path_of() noexcept {
  ngtcp2_path path{};
  path.local.addr = reinterpret_cast<ngtcp2_sockaddr*>(&path_.local.storage);
  path.local.addrlen = path_.local.length;
  path.remote.addr = reinterpret_cast<ngtcp2_sockaddr*>(&path_.remote.storage);
  path.remote.addrlen = path_.remote.length;
  return path;
}

Result<void> QuicCodec::start() {
  auto scid = random_cid(kSourceCidLength);
  if (!scid) return std::move(scid).error();
  auto dcid = random_cid(kDestinationCidLength);
  if (!dcid) return std::move(dcid).error();

  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  settings.initial_ts = quic_timestamp_of(port_.now());
  settings.handshake_timeout = options_.handshake_timeout.count() > 0
                                   ? quic_duration(options_.handshake_timeout)
                                   : UINT64_MAX;  // none
  // No window auto-tuning: credit grows only when the application returns it.
  settings.max_window = 0;
  settings.max_stream_window = 0;

  const ngtcp2_transport_params params = transport_params(options_);
  const ngtcp2_path start_path = ngtcp2_path_of();
  const int rv =
      ngtcp2_conn_client_new(&conn_, &dcid.value(), &scid.value(), &start_path, NGTCP2_PROTO_VER_V1,
                             &callbacks(), &settings, &params, nullptr, this);
  if (rv != 0) {
    conn_ = nullptr;
    return Error(ErrorCategory::io,
                 std::string("QUIC: cannot create a connection: ") + ngtcp2_strerror(rv));
  }
  tls_->attach(conn_);
  offer_early_data();
  if (options_.keep_alive.count() > 0)
    ngtcp2_conn_set_keep_alive_timeout(conn_, quic_duration(options_.keep_alive));
  port_.request_write();  // the Initial packet
  return {};
}

// ---- QuicStreams ------------------------------------------------------------

// 0-RTT: with the server's parameters of last time set, ngtcp2 lets streams open
// before the handshake; the application opens them at the first write.
void QuicCodec::offer_early_data() {
  const std::string& saved = tls_->early_transport_params();
  if (saved.empty() || !app_.wants_early_data()) return;
  ngtcp2_transport_params params;
  if (ngtcp2_decode_transport_params(&params, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS,
                                     reinterpret_cast<const std::uint8_t*>(saved.data()),
                                     saved.size()) != 0) {
    return;  // unreadable: GnuTLS may still offer early data, ngtcp2 sends none
  }
  ngtcp2_conn_set_early_remote_transport_params(conn_, &params);
  early_ = true;
}

Result<std::int64_t> QuicCodec::open_bidi_stream() {
  if (!streams_usable())
    return Error(ErrorCategory::protocol, "QUIC: connection to " + peer_ + " is not open");
  std::int64_t stream_id = -1;
  const int rv = ngtcp2_conn_open_bidi_stream(conn_, &stream_id, nullptr);
  if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED)
    return Error(ErrorCategory::protocol, "QUIC: " + options_.host + " allows no more streams now");
  if (rv != 0) {
    return Error(ErrorCategory::protocol,
                 "QUIC: cannot open a stream to " + options_.host + ": " + ngtcp2_strerror(rv));
  }
  return stream_id;
}

Result<std::int64_t> QuicCodec::open_uni_stream() {
  if (!streams_usable())
    return Error(ErrorCategory::protocol, "QUIC: connection to " + peer_ + " is not open");
  std::int64_t stream_id = -1;
  const int rv = ngtcp2_conn_open_uni_stream(conn_, &stream_id, nullptr);
  if (rv != 0) {
    return Error(ErrorCategory::protocol, "QUIC: cannot open a unidirectional stream to " +
                                              options_.host + ": " + ngtcp2_strerror(rv));
  }
  return stream_id;
}

std::uint64_t QuicCodec::bidi_streams_left() const {
  if (!streams_usable()) return 0;
  return ngtcp2_conn_get_streams_bidi_left(conn_);
}

void QuicCodec::extend_stream(std::int64_t stream_id, std::uint64_t n) {
  if (state_ == State::closed || n == 0) return;
  if (coalescing_) {
    deferred_.push_back({DeferredCall::Kind::extend, stream_id, n});
    return;
  }
  extend_credit(stream_id, n);
  port_.request_write();
}

void QuicCodec::extend_credit(std::int64_t stream_id, std::uint64_t n) {
  // Fails only for lack of memory; the peer then just waits for credit.
  (void)ngtcp2_conn_extend_max_stream_offset(conn_, stream_id, n);
  if (!handshake_confirmed_ &&
      std::find(requeue_.begin(), requeue_.end(), stream_id) == requeue_.end())
    requeue_.push_back(stream_id);
}

// Credit of 0 puts a stream's pending MAX_STREAM_DATA back in ngtcp2's queue (see
// requeue_). Called after every complete packet until the handshake is confirmed.
void QuicCodec::requeue_credit() {
  if (requeue_.empty()) return;
  for (const std::int64_t stream_id : requeue_)
    (void)ngtcp2_conn_extend_max_stream_offset(conn_, stream_id, 0);
  if (!handshake_confirmed_) return;
  requeue_.clear();
  port_.request_write();  // a write round for what was queued
}

void QuicCodec::set_stream_window(std::int64_t stream_id, std::uint64_t window) {
  // A window below the initial one cannot shrink what the peer was already given.
  if (window > options_.stream_window) extend_stream(stream_id, window - options_.stream_window);
}

void QuicCodec::extend_connection_window(std::uint64_t n) {
  if (state_ == State::closed || n == 0) return;
  // Only raises the limit ngtcp2 will announce (MAX_DATA, in its half-window steps):
  // safe even while a packet is being built.
  ngtcp2_conn_extend_max_offset(conn_, n);
  port_.request_write();
}

std::chrono::nanoseconds QuicCodec::path_rtt() const {
  if (conn_ == nullptr) return std::chrono::nanoseconds::zero();
  ngtcp2_conn_stat stat;
  ngtcp2_conn_get_conn_stat(conn_, &stat);
  if (stat.min_rtt == UINT64_MAX) return std::chrono::nanoseconds::zero();
  return std::chrono::nanoseconds(static_cast<std::int64_t>(stat.min_rtt));
}

void QuicCodec::shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) {
  if (state_ == State::closed) return;
  if (coalescing_) {
    deferred_.push_back({DeferredCall::Kind::shutdown, stream_id, app_error});
    return;
  }
  (void)ngtcp2_conn_shutdown_stream(conn_, stream_id, app_error);
  port_.request_write();
}

void QuicCodec::request_write() {
  if (state_ != State::closed) port_.request_write();
}

void QuicCodec::apply_deferred() {
  if (deferred_.empty() || state_ == State::closed) return;
  std::vector<DeferredCall> calls;
  calls.swap(deferred_);
  for (const DeferredCall& call : calls) {
    if (call.kind == DeferredCall::Kind::extend)
      extend_credit(call.stream_id, call.value);
    else
      (void)ngtcp2_conn_shutdown_stream(conn_, call.stream_id, call.value);
  }
  port_.request_write();
}

// ---- deadlines ---------------------------------------------------------------

// The earlier of ngtcp2's expiry and the application's deadline.
std::optional<TimePoint> QuicCodec::next_deadline() const {
  if (state_ == State::closed) return std::nullopt;
  const ngtcp2_tstamp expiry = ngtcp2_conn_get_expiry(conn_);
  std::optional<TimePoint> due;
  if (expiry != UINT64_MAX) due = quic_time_point(expiry);
  const std::optional<TimePoint> app = app_started_ ? app_.next_deadline() : std::nullopt;
  if (app && (!due || *app < *due)) due = app;
  return due;
}

void QuicCodec::on_deadline(TimePoint now) {
  if (state_ == State::closed) return;
  const ngtcp2_tstamp ts = quic_timestamp_of(now);
  if (ngtcp2_conn_get_expiry(conn_) <= ts) {
    ++ngtcp2_depth_;
    const int rv = ngtcp2_conn_handle_expiry(conn_, ts);
    --ngtcp2_depth_;
    if (rv != 0) {
      terminate(expiry_failure(rv));
      return;
    }
  }
  if (!app_started_) return;
  const std::optional<TimePoint> due = app_.next_deadline();
  if (due && *due <= now) app_.on_timer();
}

// ---- closing ----------------------------------------------------------------

void QuicCodec::close(Error error, std::uint64_t app_error) {
  if (state_ == State::closed) return;
  terminate(Failure{std::move(error), quic_application_close(app_error)});
}

void QuicCodec::fail_from_application(Error error, std::uint64_t app_error) {
  terminate(Failure{std::move(error), quic_application_close(app_error)});
}

void QuicCodec::terminate(Failure failure) {
  if (state_ == State::closed) return;
  if (ngtcp2_depth_ > 0) {
    // Inside ngtcp2: its callback returns failure and the caller of ngtcp2 ends
    // the connection once the call is over.
    if (!failure_) failure_ = std::move(failure);
    return;
  }
  state_ = State::closed;
  failure_.reset();
  deferred_.clear();
  const bool sent = failure.close && send_connection_close(*failure.close);
  // The reason is the application's to trace: it hears it next.
  if (trace_.on()) trace(sent ? "QUIC closed (CONNECTION_CLOSE sent)" : "QUIC closed");
  port_.close();
  app_.on_connection_closed(failure.error);
}

// A failure raised where it could not be acted on (inside ngtcp2) ends the
// connection now; true when it did.
bool QuicCodec::act_on_failure() {
  if (!failure_) return false;
  Failure failure = std::move(*failure_);
  failure_.reset();
  terminate(std::move(failure));
  return true;
}

void QuicCodec::on_port_error(Error error) { terminate(Failure{std::move(error), std::nullopt}); }

// One CONNECTION_CLOSE, sent at once and never repeated: nothing waits for the
// peer to acknowledge it (the closing period of RFC 9000 is left to the peer).
bool QuicCodec::send_connection_close(const ngtcp2_connection_close_error& close) {
  if (conn_ == nullptr || ngtcp2_conn_is_in_closing_period(conn_) ||
      ngtcp2_conn_is_in_draining_period(conn_))
    return false;
  std::vector<std::uint8_t> packet(std::max<std::size_t>(
      ngtcp2_conn_get_max_tx_udp_payload_size(conn_), NGTCP2_MAX_UDP_PAYLOAD_SIZE));
  ngtcp2_pkt_info info{};
  const ngtcp2_ssize size = ngtcp2_conn_write_connection_close(
      conn_, nullptr, &info, packet.data(), packet.size(), &close, quic_timestamp_of(port_.now()));
  if (size <= 0) return false;
  // Best effort: the connection is over whatever the socket says.
  return port_.send_now({packet.data(), static_cast<std::size_t>(size)});
}

// ---- the rest ---------------------------------------------------------------

std::string QuicCodec::alpn() const { return tls_ ? tls_->selected_alpn() : std::string(); }

std::chrono::milliseconds QuicCodec::effective_idle_timeout() const {
  std::chrono::milliseconds idle = options_.idle_timeout;
  const ngtcp2_transport_params* remote = ngtcp2_conn_get_remote_transport_params(conn_);
  if (remote != nullptr && remote->max_idle_timeout != 0) {
    const auto theirs = std::chrono::milliseconds(remote->max_idle_timeout / NGTCP2_MILLISECONDS);
    if (idle.count() == 0 || theirs < idle) idle = theirs;
  }
  return idle;
}

void QuicCodec::trace(const std::string& what) const { trace_.emit(id_, "h3", what); }

}  // namespace sluice
