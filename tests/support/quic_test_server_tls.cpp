// QuicServerTls: GnuTLS server sessions for QuicTestServer (see quic_test_server_tls.hpp).

#include "support/quic_test_server_tls.hpp"

#include <ngtcp2/ngtcp2_crypto_gnutls.h>

namespace sluice::test {
namespace {

// QUIC carries TLS 1.3 only, with the AEADs ngtcp2_crypto can protect packets
// with, and has no ChangeCipherSpec for the middlebox compatibility mode to send.
constexpr const char* kServerPriority =
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
    "+CHACHA20-POLY1305:%DISABLE_TLS13_COMPAT_MODE";

unsigned char kH3[] = {'h', '3'};

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
                                                             const std::string& key_file) {
  std::unique_ptr<QuicServerTls> tls(new QuicServerTls());
  auto configured = tls->configure(cert_file, key_file);
  if (!configured) return std::move(configured).error();
  return tls;
}

Result<void> QuicServerTls::configure(const std::string& cert_file, const std::string& key_file) {
  int rv = gnutls_certificate_allocate_credentials(&credentials_);
  if (rv != 0) return tls_failure("cannot allocate credentials", rv);
  rv = gnutls_certificate_set_x509_key_file(credentials_, cert_file.c_str(), key_file.c_str(),
                                            GNUTLS_X509_FMT_PEM);
  if (rv != 0) return tls_failure("cannot load " + cert_file + " / " + key_file, rv);
  // No EndOfEarlyData message: QUIC signals the end of 0-RTT by itself.
  rv = gnutls_init(&session_, GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA);
  if (rv != 0) return tls_failure("cannot create a session", rv);
  rv = gnutls_priority_set_direct(session_, kServerPriority, nullptr);
  if (rv != 0) return tls_failure("GnuTLS rejected the QUIC priorities", rv);
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

std::string QuicServerTls::alpn() const {
  gnutls_datum_t selected{};
  if (gnutls_alpn_get_selected_protocol(session_, &selected) != 0) return {};
  return std::string(reinterpret_cast<const char*>(selected.data), selected.size);
}

}  // namespace sluice::test
