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

TlsContextSettings tls_options_of(const ClientOptions& options) {
  TlsContextSettings tls;
  tls.ca_file = options.tls.ca_file;
  tls.insecure = options.tls.insecure;
  tls.ca_path = options.tls.ca_path;
  tls.client_cert = options.tls.client_cert;
  tls.client_key = options.tls.client_key;
  tls.key_password = options.tls.key_password;
  tls.min_version = bound_of(options.tls.min_version);
  tls.max_version = bound_of(options.tls.max_version);
  tls.tls12_ciphers = options.tls.tls12_ciphers;
  tls.tls13_ciphers = options.tls.tls13_ciphers;
  tls.pinned_public_key = options.tls.pinned_public_key;
  tls.session_cache = options.tls.session_cache;
  tls.key_log_file = options.tls.key_log_file;
  if (tls.key_log_file.empty()) {
    // Read when the Client is made, as curl reads it at start-up.
    if (const char* path = std::getenv("SSLKEYLOGFILE"); path != nullptr) tls.key_log_file = path;
  }
  return tls;
}

Result<QuicTlsOptions> quic_tls_options_of(const ClientOptions& options) {
  if (options.tls.max_version == TlsVersion::v1_2)
    return Error(ErrorCategory::usage,
                 "HTTP/3 needs TLS 1.3, but the TLS maximum is 1.2 (--tls-max 1.2)");
  QuicTlsOptions quic;
  quic.ca_file = options.tls.ca_file;
  quic.ca_path = options.tls.ca_path;
  quic.insecure = options.tls.insecure;
  quic.client_cert = options.tls.client_cert;
  quic.client_key = options.tls.client_key;
  quic.key_password = options.tls.key_password;
  quic.tls13_ciphers = options.tls.tls13_ciphers;
  quic.pinned_public_key = options.tls.pinned_public_key;
  quic.session_cache = options.tls.session_cache;
  quic.early_data = options.tls.early_data;
  return quic;
}

}  // namespace sluice
