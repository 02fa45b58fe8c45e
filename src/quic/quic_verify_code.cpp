#include "quic/quic_verify_code.hpp"

#include <gnutls/gnutls.h>

namespace sluice {
namespace {

// OpenSSL's X509_V_ERR_* values (include/openssl/x509_vfy.h); written out because
// this file is GnuTLS's side and does not include OpenSSL.
constexpr long kUnspecified = 1;
constexpr long kSignatureFailure = 7;
constexpr long kNotYetValid = 9;
constexpr long kExpired = 10;
constexpr long kDepthZeroSelfSigned = 18;
constexpr long kSelfSignedInChain = 19;
constexpr long kUnableToGetIssuerLocally = 20;
constexpr long kRevoked = 23;
constexpr long kInvalidPurpose = 26;
constexpr long kHostnameMismatch = 62;
constexpr long kCaMdTooWeak = 68;
constexpr long kInvalidCa = 79;

}  // namespace

long openssl_verify_code(unsigned status, unsigned chain_length, bool top_self_issued) noexcept {
  if (status == 0) return 0;
  if (status & GNUTLS_CERT_SIGNER_NOT_FOUND) {
    if (top_self_issued) return chain_length <= 1 ? kDepthZeroSelfSigned : kSelfSignedInChain;
    return kUnableToGetIssuerLocally;
  }
  if (status & GNUTLS_CERT_SIGNER_NOT_CA) return kInvalidCa;
  if (status & GNUTLS_CERT_SIGNATURE_FAILURE) return kSignatureFailure;
  if (status & GNUTLS_CERT_INSECURE_ALGORITHM) return kCaMdTooWeak;
  if (status & GNUTLS_CERT_NOT_ACTIVATED) return kNotYetValid;
  if (status & GNUTLS_CERT_EXPIRED) return kExpired;
  if (status & GNUTLS_CERT_REVOKED) return kRevoked;
  if (status & GNUTLS_CERT_PURPOSE_MISMATCH) return kInvalidPurpose;
  if (status & GNUTLS_CERT_UNEXPECTED_OWNER) return kHostnameMismatch;
  return kUnspecified;
}

}  // namespace sluice
