// QuicTlsContext: GnuTLS credentials and priorities shared by a Client's QUIC
// connections (see quic_tls.hpp).
// Ownership: made on the HTTP thread at the first HTTP/3 attempt, then shared
// read-only by the connections that use it.

#include <gnutls/gnutls.h>

#include <map>
#include <string_view>

#include "quic/quic_tls.hpp"

namespace sluice {
namespace {

// QUIC needs TLS 1.3 and the AEADs ngtcp2_crypto can protect packets with; no
// middlebox compatibility mode (QUIC has no ChangeCipherSpec).
constexpr const char* kPriorityHead = "%DISABLE_TLS13_COMPAT_MODE:NORMAL:-VERS-ALL:+VERS-TLS1.3:";
constexpr const char* kAllCiphers =
    "-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:";
constexpr const char* kGroups =
    "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1";

Error tls_error(std::string message) { return Error(ErrorCategory::tls, "TLS: " + message); }

// The TLS 1.3 suites by their IANA names (what OpenSSL's --tls13-ciphers takes), as
// GnuTLS priority items; the hash of each suite follows from the cipher.
Result<std::string> cipher_priority(const std::string& suites) {
  if (suites.empty()) return std::string(kAllCiphers);
  static const std::map<std::string_view, std::string_view> kNames = {
      {"TLS_AES_128_GCM_SHA256", "+AES-128-GCM"},
      {"TLS_AES_256_GCM_SHA384", "+AES-256-GCM"},
      {"TLS_CHACHA20_POLY1305_SHA256", "+CHACHA20-POLY1305"},
      {"TLS_AES_128_CCM_SHA256", "+AES-128-CCM"},
  };
  std::string priority = "-CIPHER-ALL:";
  std::size_t start = 0;
  while (start <= suites.size()) {
    const std::size_t end = std::min(suites.find(':', start), suites.size());
    const std::string_view name = std::string_view(suites).substr(start, end - start);
    auto found = kNames.find(name);
    if (found == kNames.end())
      return Error(ErrorCategory::usage, "TLS: HTTP/3 cannot use TLS 1.3 cipher suite '" +
                                             std::string(name) + "' from --tls13-ciphers");
    priority += std::string(found->second) + ":";
    start = end + 1;
  }
  return priority;
}

}  // namespace

Result<std::shared_ptr<const QuicTlsContext>> QuicTlsContext::create(const TlsOptions& options) {
  std::shared_ptr<QuicTlsContext> context(new QuicTlsContext());
  context->insecure_ = options.insecure;
  context->early_data_ = options.early_data && options.session_cache;
  context->ca_file_ = options.ca_file;
  // As many origins as the TCP session cache keeps (tls/tls_shared.hpp).
  context->tickets_ = std::make_shared<QuicTicketStore>(options.session_cache ? 256 : 0);
  auto ciphers = cipher_priority(options.tls13_ciphers);
  if (!ciphers) return std::move(ciphers).error();
  context->priority_ = std::string(kPriorityHead) + *ciphers + kGroups;
  auto pins = parse_public_key_pins(options.pinned_public_key);
  if (!pins) return std::move(pins).error();
  context->pins_ = std::move(*pins);
  const int rv = gnutls_certificate_allocate_credentials(&context->credentials_);
  if (rv != 0)
    return tls_error(std::string("cannot set up GnuTLS credentials: ") + gnutls_strerror(rv));
  if (auto loaded = context->load_client_certificate(options); !loaded)
    return std::move(loaded).error();
  // Insecure: the trust is still loaded so the check can report its result, but a
  // store that cannot be loaded is no reason to fail what asked to verify nothing.
  if (auto loaded = context->load_trust(options); !loaded && !options.insecure)
    return std::move(loaded).error();
  return std::shared_ptr<const QuicTlsContext>(std::move(context));
}

Result<void> QuicTlsContext::load_trust(const TlsOptions& options) {
  if (!options.ca_file.empty()) {
    const int loaded = gnutls_certificate_set_x509_trust_file(credentials_, options.ca_file.c_str(),
                                                              GNUTLS_X509_FMT_PEM);
    if (loaded < 0)
      return Error(ErrorCode::tls_ca_file, "TLS: cannot load CA file '" + options.ca_file +
                                               "': " + gnutls_strerror(loaded));
    if (loaded == 0) {
      return Error(ErrorCode::tls_ca_file,
                   "TLS: CA file '" + options.ca_file + "' holds no PEM certificate");
    }
  }
  if (!options.ca_path.empty()) {
    const int loaded = gnutls_certificate_set_x509_trust_dir(credentials_, options.ca_path.c_str(),
                                                             GNUTLS_X509_FMT_PEM);
    if (loaded < 0)
      return tls_error("cannot load CA directory '" + options.ca_path +
                       "': " + gnutls_strerror(loaded));
  }
  if (options.ca_file.empty() && options.ca_path.empty()) {
    const int loaded = gnutls_certificate_set_x509_system_trust(credentials_);
    if (loaded < 0)
      return tls_error(std::string("cannot load the system trust store: ") +
                       gnutls_strerror(loaded));
  }
  return {};
}

Result<void> QuicTlsContext::load_client_certificate(const TlsOptions& options) {
  if (options.client_cert.empty()) return {};
  const std::string& key = options.client_key.empty() ? options.client_cert : options.client_key;
  const char* password = options.key_password.empty() ? nullptr : options.key_password.c_str();
  const int rv = gnutls_certificate_set_x509_key_file2(
      credentials_, options.client_cert.c_str(), key.c_str(), GNUTLS_X509_FMT_PEM, password, 0);
  if (rv < 0)
    return Error(ErrorCategory::usage, "TLS: cannot use client certificate " + options.client_cert +
                                           " with key " + key +
                                           " for HTTP/3: " + gnutls_strerror(rv));
  return {};
}

QuicTlsContext::~QuicTlsContext() {
  if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
}

}  // namespace sluice
