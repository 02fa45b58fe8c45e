#pragma once
// Turns OpenSSL's view of a failed TLS handshake into messages a person can act
// on: whose certificate, for which host, what is wrong with it, what to do.
// Ownership: plain values and free functions; HTTP thread (called by TlsTransport).

#include <string>

#include "sluice/error.hpp"

typedef struct x509_st X509;
typedef struct x509_store_ctx_st X509_STORE_CTX;

namespace sluice {

/// What the verifier saw when it rejected the server's chain; captured inside the
/// verify callback, because OpenSSL keeps no peer certificate after a rejection.
struct TlsVerifyFailure {
  long code = 0;           ///< X509_V_ERR_*; 0 (X509_V_OK) when nothing failed
  int depth = 0;           ///< 0: the server's own certificate; 1+: an issuer
  std::string leaf_names;  ///< "wrong.example, 127.0.0.1": the server cert's names
  std::string subject;     ///< the rejected certificate's subject
  std::string not_before;  ///< the rejected certificate's validity, "2024-05-01 12:00:00 UTC"
  std::string not_after;
};

TlsVerifyFailure capture_verify_failure(X509_STORE_CTX* store);

/// "TLS: certificate for wrong.example does not match host localhost", ...
Error describe_verify_failure(const TlsVerifyFailure& failure, const std::string& host);

/// The names a certificate is valid for: DNS and IP subjectAltNames, else its CN.
std::string certificate_names(X509* cert);

/// The reason text of the newest error in OpenSSL's thread queue, or `fallback`.
std::string openssl_error_text(const char* fallback);

/// Why a handshake step failed, from SSL_get_error's `ssl_error`, the errno saved
/// right after it and OpenSSL's error queue: "connection closed by peer", a plain-HTTP
/// port, or OpenSSL's reason (with client_certificate_hint's advice; `has_cert`:
/// whether this client presented a certificate).
std::string handshake_failure_reason(int ssl_error, int saved_errno, bool has_cert);

/// A TLS 1.3 server checks a client certificate after the client's Finished, so its
/// refusal arrives as an alert on the first read, not in the handshake: what that
/// alert (OpenSSL error `code`) means, as a suffix for the read's error, or "".
/// `has_cert`: whether this client presented one.
std::string client_certificate_hint(unsigned long code, bool has_cert);

}  // namespace sluice
