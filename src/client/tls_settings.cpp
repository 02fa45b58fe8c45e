// ClientOptions' TLS settings for OpenSSL and GnuTLS (see tls_settings.hpp).
// Ownership: pure functions; any thread.

#include "client/tls_settings.hpp"

#include <cstdlib>

namespace sluice {
namespace {

TlsVersionBound bound_of(TlsVersion version) {
  return version == TlsVersion::v1_2 ? TlsVersionBound::v1_2 : TlsVersionBound::v1_3;
}

}  // namespace

TlsOptions tls_options_of(const ClientOptions& options) {
  TlsOptions tls;
  tls.ca_file = options.ca_file;
  tls.insecure = options.insecure;
  tls.ca_path = options.ca_path;
  tls.client_cert = options.client_cert;
  tls.client_key = options.client_key;
  tls.key_password = options.key_password;
  tls.min_version = bound_of(options.tls_min_version);
  tls.max_version = bound_of(options.tls_max_version);
  tls.tls12_ciphers = options.tls12_ciphers;
  tls.tls13_ciphers = options.tls13_ciphers;
  tls.pinned_public_key = options.pinned_public_key;
  tls.session_cache = options.tls_session_cache;
  tls.key_log_file = options.key_log_file;
  if (tls.key_log_file.empty()) {
    // Read when the Client is made, as curl reads it at start-up.
    if (const char* path = std::getenv("SSLKEYLOGFILE"); path != nullptr) tls.key_log_file = path;
  }
  return tls;
}

Result<QuicTlsOptions> quic_tls_options_of(const ClientOptions& options) {
  if (options.tls_max_version == TlsVersion::v1_2)
    return Error(ErrorCategory::usage,
                 "HTTP/3 needs TLS 1.3, but the TLS maximum is 1.2 (--tls-max 1.2)");
  QuicTlsOptions quic;
  quic.ca_file = options.ca_file;
  quic.ca_path = options.ca_path;
  quic.insecure = options.insecure;
  quic.client_cert = options.client_cert;
  quic.client_key = options.client_key;
  quic.key_password = options.key_password;
  quic.tls13_ciphers = options.tls13_ciphers;
  quic.pinned_public_key = options.pinned_public_key;
  quic.session_cache = options.tls_session_cache;
  quic.early_data = options.tls_early_data;
  return quic;
}

}  // namespace sluice
