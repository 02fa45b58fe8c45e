// QuicServerTls: GnuTLS server sessions for QuicTestServer (see quic_test_server_tls.hpp).

#include "support/quic_test_server_tls.hpp"

#include <ngtcp2/ngtcp2_crypto_gnutls.h>

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
  const bool added =
      seen.emplace(reinterpret_cast<const char*>(key->data), key->size).second;
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

}  // namespace

QuicServerTls::QuicServerTls() {
  conn_ref_.get_conn = &QuicServerTls::conn_of;
  conn_ref_.user_data = this;
}

QuicServerTls::~QuicServerTls() {
  if (session_ != nullptr) gnutls_deinit(session_);
  if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
}

Result<std::unique_ptr<QuicServerTls>> QuicServerTls::create(const std::string& cert_file,
                                                             const std::string& key_file,
                                                             bool session_tickets,
                                                             bool accept_early_data) {
  std::unique_ptr<QuicServerTls> tls(new QuicServerTls());
  auto configured = tls->configure(cert_file, key_file, session_tickets, accept_early_data);
  if (!configured) return std::move(configured).error();
  return tls;
}

Result<void> QuicServerTls::configure(const std::string& cert_file, const std::string& key_file,
                                      bool session_tickets, bool accept_early_data) {
  int rv = gnutls_certificate_allocate_credentials(&credentials_);
  if (rv != 0) return tls_failure("cannot allocate credentials", rv);
  rv = gnutls_certificate_set_x509_key_file(credentials_, cert_file.c_str(), key_file.c_str(),
                                            GNUTLS_X509_FMT_PEM);
  if (rv != 0) return tls_failure("cannot load " + cert_file + " / " + key_file, rv);
  // No EndOfEarlyData message: QUIC signals the end of 0-RTT by itself.
  const bool early = session_tickets && accept_early_data;
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
    if (anti_replay() == nullptr) return Error(ErrorCategory::tls, "QuicTestServer: no anti-replay");
    gnutls_anti_replay_enable(session_, anti_replay());
    // QUIC's value for "any amount" (RFC 9001 section 4.6.1); QUIC limits it itself.
    rv = gnutls_record_set_max_early_data_size(session_, 0xffffffffu);
    if (rv != 0) return tls_failure("cannot allow early data", rv);
  }
  if (ngtcp2_crypto_gnutls_configure_server_session(session_) != 0)
    return Error(ErrorCategory::tls, "QuicTestServer: cannot prepare the session for QUIC");
  gnutls_session_set_ptr(session_, &conn_ref_);
  rv = gnutls_credentials_set(session_, GNUTLS_CRD_CERTIFICATE, credentials_);
  if (rv != 0) return tls_failure("cannot attach the certificate", rv);
  const gnutls_datum_t alpn{kH3, sizeof kH3};
  // Mandatory: a client that does not offer h3 fails the handshake, as RFC 9114 asks.
  rv = gnutls_alpn_set_protocols(session_, &alpn, 1, GNUTLS_ALPN_MANDATORY);
  if (rv != 0) return tls_failure("cannot require ALPN h3", rv);
  return {};
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
