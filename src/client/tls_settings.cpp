// ClientOptions' TLS group for OpenSSL and GnuTLS (see tls_settings.hpp).
// Ownership: pure functions; any thread.

#include "client/tls_settings.hpp"

#include <cstdlib>

namespace sluice {

TlsOptions origin_tls_options(const ClientOptions& options) {
  TlsOptions tls = options.tls;
  if (tls.key_log_file.empty()) {
    if (const char* path = std::getenv("SSLKEYLOGFILE"); path != nullptr) tls.key_log_file = path;
  }
  return tls;
}

TlsOptions proxy_tls_options(const ClientOptions& options) {
  TlsOptions tls;
  tls.ca_file = options.proxy.ca_file;
  tls.insecure = options.proxy.insecure;
  return tls;
}

Result<void> check_quic_allowed(const ClientOptions& options) {
  if (options.tls.max_version == TlsVersion::v1_2) {
    return Error(ErrorCategory::usage,
                 "HTTP/3 needs TLS 1.3, but the TLS maximum is 1.2 (--tls-max 1.2)");
  }
  return {};
}

}  // namespace sluice
