// openssl_verify_code: GnuTLS's verdict on a server certificate in the numbers
// OpenSSL's SSL_get_verify_result gives (X509_V_ERR_*), so %{ssl_verify_result} means
// the same over HTTP/3 as over TCP.
#include <gnutls/gnutls.h>
#include <gtest/gtest.h>
#include <openssl/x509_vfy.h>

#include "quic/quic_verify_code.hpp"

namespace sluice {
namespace {

TEST(QuicVerifyCode, TrustedIsZero) { EXPECT_EQ(openssl_verify_code(0, 2, false), X509_V_OK); }

// An unknown issuer: 20 for a chain that stops below its root, 18 for a self-signed
// leaf alone, 19 for a chain whose self-signed root came along untrusted.
TEST(QuicVerifyCode, UnknownIssuerDependsOnWhatTheChainEndsWith) {
  const unsigned unknown = GNUTLS_CERT_INVALID | GNUTLS_CERT_SIGNER_NOT_FOUND;
  EXPECT_EQ(openssl_verify_code(unknown, 2, false), X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
  EXPECT_EQ(openssl_verify_code(unknown, 1, true), X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
  EXPECT_EQ(openssl_verify_code(unknown, 3, true), X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN);
}

TEST(QuicVerifyCode, EachFaultHasOpenSslsNumber) {
  const unsigned invalid = GNUTLS_CERT_INVALID;
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_EXPIRED, 2, false),
            X509_V_ERR_CERT_HAS_EXPIRED);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_NOT_ACTIVATED, 2, false),
            X509_V_ERR_CERT_NOT_YET_VALID);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_REVOKED, 2, false), X509_V_ERR_CERT_REVOKED);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_UNEXPECTED_OWNER, 2, false),
            X509_V_ERR_HOSTNAME_MISMATCH);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_SIGNATURE_FAILURE, 2, false),
            X509_V_ERR_CERT_SIGNATURE_FAILURE);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_SIGNER_NOT_CA, 2, false),
            X509_V_ERR_INVALID_CA);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_PURPOSE_MISMATCH, 2, false),
            X509_V_ERR_INVALID_PURPOSE);
  EXPECT_EQ(openssl_verify_code(invalid | GNUTLS_CERT_INSECURE_ALGORITHM, 2, false),
            X509_V_ERR_CA_MD_TOO_WEAK);
  EXPECT_EQ(openssl_verify_code(invalid, 2, false), X509_V_ERR_UNSPECIFIED);
}

// OpenSSL builds the chain before it checks dates or the name: an unknown issuer
// wins over an expired leaf for another host.
TEST(QuicVerifyCode, TheIssuerComesBeforeTheDatesAndTheName) {
  const unsigned status = GNUTLS_CERT_INVALID | GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_EXPIRED |
                          GNUTLS_CERT_UNEXPECTED_OWNER;
  EXPECT_EQ(openssl_verify_code(status, 2, false), X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
  EXPECT_EQ(openssl_verify_code(
                GNUTLS_CERT_INVALID | GNUTLS_CERT_EXPIRED | GNUTLS_CERT_UNEXPECTED_OWNER, 2, false),
            X509_V_ERR_CERT_HAS_EXPIRED);
}

}  // namespace
}  // namespace sluice
