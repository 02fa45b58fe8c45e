// QuicServerTls: GnuTLS server sessions for QuicTestServer (see quic_test_server_tls.hpp).

#include "support/quic_test_server_tls.hpp"

#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <set>
#include <string>

namespace sluice::test {
namespace {

// QUIC carries TLS 1.3 only, with the AEADs ngtcp2_crypto can protect packets
// with, and has no ChangeCipherSpec for the middlebox compatibility mode to send.
constexpr const char* kServerPriority =
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
    "+CHACHA20-POLY1305:%DISABLE_TLS13_COMPAT_MODE";

unsigned char kH3[] = {'h', '3'};

// The ticket key of every test server in the process, made once.
const gnutls_datum_t* ticket_key() {
  static const gnutls_datum_t key = [] {
    gnutls_datum_t made{};
    if (gnutls_session_ticket_key_generate(&made) != 0) made = {};
    return made;
  }();
  return key.data != nullptr ? &key : nullptr;
}

// Anti-replay for every test server in the process: GnuTLS accepts early data only
// when a ClientHello passes it; the database refuses one it has seen.
int remember_client_hello(void*, time_t, const gnutls_datum_t* key, const gnutls_datum_t*) {
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard lock(mu);
  const bool added = seen.emplace(reinterpret_cast<const char*>(key->data), key->size).second;
  return added ? 0 : GNUTLS_E_DB_ENTRY_EXISTS;
}

gnutls_anti_replay_t anti_replay() {
  static const gnutls_anti_replay_t made = [] {
    gnutls_anti_replay_t ar = nullptr;
    if (gnutls_anti_replay_init(&ar) != 0) return gnutls_anti_replay_t{nullptr};
    gnutls_anti_replay_set_add_function(ar, &remember_client_hello);
    return ar;
  }();
  return made;
}

Error tls_failure(const std::string& what, int rv) {
  return Error(ErrorCategory::tls, "QuicTestServer: " + what + ": " + gnutls_strerror(rv));
}

// Room for our encoded transport parameters: a few dozen varints and a token.
constexpr std::size_t kTransportParamsRoom = 256;

}  // namespace

QuicServerTls::QuicServerTls() {
  conn_ref_.get_conn = &QuicServerTls::conn_of;
  conn_ref_.user_data = this;
}

QuicServerTls::~QuicServerTls() {
  if (session_ != nullptr) gnutls_deinit(session_);
  if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
}

Result<std::unique_ptr<QuicServerTls>> QuicServerTls::create(
    const QuicServerTlsSettings& settings) {
  std::unique_ptr<QuicServerTls> tls(new QuicServerTls());
  auto configured = tls->configure(settings);
  if (!configured) return std::move(configured).error();
  return tls;
}

Result<void> QuicServerTls::configure(const QuicServerTlsSettings& settings) {
  assumed_stream_window_ = settings.assumed_stream_window;
  const bool session_tickets = settings.session_tickets;
  int rv = gnutls_certificate_allocate_credentials(&credentials_);
  if (rv != 0) return tls_failure("cannot allocate credentials", rv);
  rv = gnutls_certificate_set_x509_key_file(credentials_, settings.cert_file.c_str(),
                                            settings.key_file.c_str(), GNUTLS_X509_FMT_PEM);
  if (rv != 0) {
    return tls_failure("cannot load " + settings.cert_file + " / " + settings.key_file, rv);
  }
  // No EndOfEarlyData message: QUIC signals the end of 0-RTT by itself.
  const bool early = session_tickets && settings.accept_early_data;
  rv = gnutls_init(&session_, GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA |
                                  (early ? GNUTLS_ENABLE_EARLY_DATA : 0));
  if (rv != 0) return tls_failure("cannot create a session", rv);
  rv = gnutls_priority_set_direct(session_, kServerPriority, nullptr);
  if (rv != 0) return tls_failure("GnuTLS rejected the QUIC priorities", rv);
  if (session_tickets) {
    const gnutls_datum_t* key = ticket_key();
    if (key == nullptr) return Error(ErrorCategory::tls, "QuicTestServer: no ticket key");
    rv = gnutls_session_ticket_enable_server(session_, key);
    if (rv != 0) return tls_failure("cannot enable session tickets", rv);
    session_tickets_ = true;
  }
  if (early) {
    if (anti_replay() == nullptr)
      return Error(ErrorCategory::tls, "QuicTestServer: no anti-replay");
    gnutls_anti_replay_enable(session_, anti_replay());
    // QUIC's value for "any amount" (RFC 9001 section 4.6.1); QUIC limits it itself.
    rv = gnutls_record_set_max_early_data_size(session_, 0xffffffffu);
    if (rv != 0) return tls_failure("cannot allow early data", rv);
  }
  auto hooked = install_quic_hooks();
  if (!hooked) return hooked;
  gnutls_session_set_ptr(session_, &conn_ref_);
  rv = gnutls_credentials_set(session_, GNUTLS_CRD_CERTIFICATE, credentials_);
  if (rv != 0) return tls_failure("cannot attach the certificate", rv);
  const gnutls_datum_t alpn{kH3, sizeof kH3};
  // Mandatory: a client that does not offer h3 fails the handshake, as RFC 9114 asks.
  rv = gnutls_alpn_set_protocols(session_, &alpn, 1, GNUTLS_ALPN_MANDATORY);
  if (rv != 0) return tls_failure("cannot require ALPN h3", rv);
  return {};
}

// What ngtcp2_crypto_gnutls_configure_server_session would install, made here so
// that the client's transport parameters pass through take_client_transport_params.
Result<void> QuicServerTls::install_quic_hooks() {
  gnutls_handshake_set_secret_function(session_, &QuicServerTls::on_secrets);
  gnutls_handshake_set_read_function(session_, &QuicServerTls::on_handshake_bytes);
  gnutls_alert_set_read_function(session_, &QuicServerTls::on_alert);
  // RFC 9001 section 8.2: in the ClientHello and EncryptedExtensions only.
  const int rv = gnutls_session_ext_register(
      session_, "QUIC Transport Parameters", NGTCP2_TLSEXT_QUIC_TRANSPORT_PARAMETERS_V1,
      GNUTLS_EXT_TLS, &QuicServerTls::on_client_transport_params,
      &QuicServerTls::on_our_transport_params, nullptr, nullptr, nullptr,
      GNUTLS_EXT_FLAG_TLS | GNUTLS_EXT_FLAG_CLIENT_HELLO | GNUTLS_EXT_FLAG_EE);
  if (rv != 0) return tls_failure("cannot carry QUIC transport parameters", rv);
  return {};
}

QuicServerTls& QuicServerTls::of(gnutls_session_t session) noexcept {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(gnutls_session_get_ptr(session));
  return *static_cast<QuicServerTls*>(ref->user_data);
}

// GnuTLS derived the secrets of a new encryption level: ngtcp2 makes the packet
// protection keys from them.
int QuicServerTls::on_secrets(gnutls_session_t session, gnutls_record_encryption_level_t level,
                              const void* rx_secret, const void* tx_secret,
                              std::size_t length) noexcept {
  ngtcp2_conn* conn = of(session).conn_;
  const ngtcp2_crypto_level quic_level =
      ngtcp2_crypto_gnutls_from_gnutls_record_encryption_level(level);
  const auto* rx = static_cast<const std::uint8_t*>(rx_secret);
  const auto* tx = static_cast<const std::uint8_t*>(tx_secret);
  if (rx != nullptr && ngtcp2_crypto_derive_and_install_rx_key(conn, nullptr, nullptr, nullptr,
                                                               quic_level, rx, length) != 0) {
    return -1;
  }
  if (tx != nullptr && ngtcp2_crypto_derive_and_install_tx_key(conn, nullptr, nullptr, nullptr,
                                                               quic_level, tx, length) != 0) {
    return -1;
  }
  return 0;
}

// Handshake bytes GnuTLS wants sent: QUIC carries them in CRYPTO frames, and has no
// ChangeCipherSpec (RFC 9001 section 8.4).
int QuicServerTls::on_handshake_bytes(gnutls_session_t session,
                                      gnutls_record_encryption_level_t level,
                                      gnutls_handshake_description_t type, const void* data,
                                      std::size_t length) noexcept {
  if (type == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC) return 0;
  ngtcp2_conn* conn = of(session).conn_;
  const int rv = ngtcp2_conn_submit_crypto_data(
      conn, ngtcp2_crypto_gnutls_from_gnutls_record_encryption_level(level),
      static_cast<const std::uint8_t*>(data), length);
  if (rv != 0) {
    ngtcp2_conn_set_tls_error(conn, rv);
    return -1;
  }
  return 0;
}

// An alert GnuTLS raised: ngtcp2 closes with CRYPTO_ERROR plus its code.
int QuicServerTls::on_alert(gnutls_session_t session, gnutls_record_encryption_level_t,
                            gnutls_alert_level_t, gnutls_alert_description_t alert) noexcept {
  ngtcp2_conn_set_tls_alert(of(session).conn_, static_cast<std::uint8_t>(alert));
  return 0;
}

int QuicServerTls::on_client_transport_params(gnutls_session_t session, const unsigned char* data,
                                              std::size_t length) noexcept {
  return of(session).take_client_transport_params(data, length);
}

int QuicServerTls::on_our_transport_params(gnutls_session_t session, gnutls_buffer_t out) noexcept {
  std::array<std::uint8_t, kTransportParamsRoom> encoded{};
  const ngtcp2_ssize n =
      ngtcp2_conn_encode_local_transport_params(of(session).conn_, encoded.data(), encoded.size());
  if (n < 0) return -1;
  return gnutls_buffer_append_data(out, encoded.data(), static_cast<std::size_t>(n)) == 0 ? 0 : -1;
}

// The client's parameters go to the connection as sent, unless the server is to
// assume a larger stream window: then they are decoded, raised and encoded again,
// and the connection never learns the client's real limit.
int QuicServerTls::take_client_transport_params(const std::uint8_t* data, std::size_t length) {
  std::array<std::uint8_t, kTransportParamsRoom> raised{};
  ngtcp2_ssize n = static_cast<ngtcp2_ssize>(length);
  if (assumed_stream_window_ != 0) {
    n = raise_windows(data, length, raised);
    data = raised.data();
  }
  const int rv =
      n < 0 ? static_cast<int>(n)
            : ngtcp2_conn_decode_remote_transport_params(conn_, data, static_cast<std::size_t>(n));
  if (rv != 0) {
    ngtcp2_conn_set_tls_error(conn_, rv);
    return -1;
  }
  return 0;
}

ngtcp2_ssize QuicServerTls::raise_windows(const std::uint8_t* data, std::size_t length,
                                          std::span<std::uint8_t> out) const {
  ngtcp2_transport_params params{};
  const int rv = ngtcp2_decode_transport_params(&params, NGTCP2_TRANSPORT_PARAMS_TYPE_CLIENT_HELLO,
                                                data, length);
  if (rv != 0) return rv;
  params.initial_max_stream_data_bidi_local =
      std::max(params.initial_max_stream_data_bidi_local, assumed_stream_window_);
  return ngtcp2_encode_transport_params(out.data(), out.size(),
                                        NGTCP2_TRANSPORT_PARAMS_TYPE_CLIENT_HELLO, &params);
}

void QuicServerTls::attach(ngtcp2_conn* conn) noexcept {
  conn_ = conn;
  ngtcp2_conn_set_tls_native_handle(conn, session_);
}

ngtcp2_conn* QuicServerTls::conn_of(ngtcp2_crypto_conn_ref* ref) noexcept {
  return static_cast<QuicServerTls*>(ref->user_data)->conn_;
}

void QuicServerTls::send_ticket() {
  // A failure only means the client cannot resume next time.
  if (session_tickets_) (void)gnutls_session_ticket_send(session_, 1, 0);
}

bool QuicServerTls::resumed() const { return gnutls_session_is_resumed(session_) != 0; }

bool QuicServerTls::early_data_accepted() const {
  return (gnutls_session_get_flags(session_) & GNUTLS_SFLAGS_EARLY_DATA) != 0;
}

std::string QuicServerTls::alpn() const {
  gnutls_datum_t selected{};
  if (gnutls_alpn_get_selected_protocol(session_, &selected) != 0) return {};
  return std::string(reinterpret_cast<const char*>(selected.data), selected.size);
}

}  // namespace sluice::test
