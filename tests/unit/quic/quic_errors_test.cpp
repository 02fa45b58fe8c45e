// The messages a QUIC connection ends with (src/quic/quic_errors.cpp) and the
// certificate failures of its TLS (describe_quic_verify_failure in quic_tls.cpp).

#include "quic/quic_errors.hpp"

#include <gnutls/gnutls.h>
#include <gtest/gtest.h>

#include <cstring>

#include "quic/quic_tls.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

ngtcp2_connection_close_error peer_close(ngtcp2_connection_close_error_code_type type,
                                         std::uint64_t code, const char* reason = nullptr) {
  ngtcp2_connection_close_error close;
  ngtcp2_connection_close_error_default(&close);
  close.type = type;
  close.error_code = code;
  if (reason != nullptr) {
    close.reason = reinterpret_cast<std::uint8_t*>(const_cast<char*>(reason));
    close.reasonlen = std::strlen(reason);
  }
  return close;
}

// The application above QUIC names its own codes (HTTP/3: h3_error_name).
std::string app_names(std::uint64_t code) { return code == 0x100 ? "APP_DONE" : "APP_OTHER"; }

TEST(QuicErrorsTest, TheApplicationNamesTheCodeOfAnApplicationClose) {
  const Error error =
      quic_peer_close_error(peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION, 0x100),
                            "localhost", true, &app_names);

  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (APP_DONE)");
}

TEST(QuicErrorsTest, AnApplicationCodeWithoutANamerIsShownInHex) {
  const Error error =
      quic_peer_close_error(peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION, 0x10c),
                            "localhost", true, nullptr);

  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (error 0x10c)");
}

TEST(QuicErrorsTest, NamesTheTransportCodeAndQuotesTheReason) {
  const Error error = quic_peer_close_error(
      peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT, 0x0a, "bad frame"),
      "example.org", true, &app_names);

  EXPECT_EQ(error.message(),
            "QUIC: example.org closed the connection (PROTOCOL_VIOLATION: \"bad frame\")");
}

TEST(QuicErrorsTest, ReplacesControlCharactersInTheReason) {
  const Error error = quic_peer_close_error(
      peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION, 0x101, "a\x1b[2Jb\n"),
      "localhost", true, &app_names);

  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (APP_OTHER: \"a?[2Jb?\")");
}

TEST(QuicErrorsTest, ACryptoErrorDuringTheHandshakeIsATlsErrorNamingTheAlert) {
  const Error error = quic_peer_close_error(
      peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT, NGTCP2_CRYPTO_ERROR + 120),
      "localhost", false, &app_names);

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(),
            "TLS: localhost refused the QUIC handshake: No supported application protocol could "
            "be negotiated (TLS alert 120)");
}

TEST(QuicErrorsTest, ACryptoErrorAfterTheHandshakeIsAProtocolError) {
  const Error error = quic_peer_close_error(
      peer_close(NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT, NGTCP2_CRYPTO_ERROR + 80),
      "localhost", true, &app_names);

  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (CRYPTO_ERROR (TLS alert 80))");
}

TEST(QuicErrorsTest, TimeoutsNameTheirLimit) {
  EXPECT_EQ(quic_handshake_timeout_error("localhost:4433", 2000ms).message(),
            "QUIC: handshake with localhost:4433 did not complete within 2000 ms");
  EXPECT_EQ(quic_handshake_timeout_error("localhost:4433", 2000ms).category(),
            ErrorCategory::timeout);
  EXPECT_EQ(quic_idle_timeout_error("localhost:4433", 30000ms, true).message(),
            "QUIC: nothing from localhost:4433 for 30000 ms (idle timeout); connection closed");
  EXPECT_EQ(quic_idle_timeout_error("localhost:4433", 300ms, false).message(),
            "QUIC: handshake with localhost:4433 got no answer within 300 ms (idle timeout)");
  EXPECT_EQ(quic_idle_timeout_error("localhost:4433", 300ms, false).category(),
            ErrorCategory::timeout);
}

TEST(QuicErrorsTest, AStatelessResetSaysWhatItMeans) {
  const Error error = quic_stateless_reset_error("localhost");

  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message().rfind("QUIC: localhost sent a stateless reset", 0), 0u)
      << error.message();
}

TEST(QuicErrorsTest, LibraryErrorsSayWhoBrokeWhat) {
  const Error violation = quic_library_error(NGTCP2_ERR_FLOW_CONTROL, "localhost");
  EXPECT_EQ(violation.category(), ErrorCategory::protocol);
  EXPECT_EQ(violation.message(),
            "QUIC: localhost broke the QUIC protocol (FLOW_CONTROL_ERROR, ERR_FLOW_CONTROL)");

  const Error version = quic_library_error(NGTCP2_ERR_RECV_VERSION_NEGOTIATION, "localhost");
  EXPECT_EQ(version.category(), ErrorCategory::connect);
  EXPECT_EQ(version.message(), "QUIC: localhost does not support QUIC version 1");

  EXPECT_EQ(quic_library_error(NGTCP2_ERR_NOMEM, "localhost").message(),
            "QUIC: connection to localhost failed: ERR_NOMEM");
}

TEST(QuicErrorsTest, CloseFramesCarryTheirKindAndCode) {
  const auto application = quic_application_close(0x10c);
  EXPECT_EQ(application.type, NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION);
  EXPECT_EQ(application.error_code, 0x10cu);

  const auto alert = quic_tls_alert_close(42);
  EXPECT_EQ(alert.type, NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT);
  EXPECT_EQ(alert.error_code, NGTCP2_CRYPTO_ERROR + 42);

  const auto idle = quic_library_close(NGTCP2_ERR_IDLE_CLOSE);
  EXPECT_EQ(idle.type, NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT_IDLE_CLOSE);
}

// ---- certificate failures ----------------------------------------------------

QuicTlsVerifyFailure failure_with(unsigned status) {
  QuicTlsVerifyFailure failure;
  failure.status = status | GNUTLS_CERT_INVALID;
  failure.leaf_names = "wrong.example";
  failure.not_before = "2024-01-01 00:00:00 UTC";
  failure.not_after = "2024-02-01 00:00:00 UTC";
  return failure;
}

TEST(QuicVerifyFailureTest, AnotherHostsCertificateNamesBoth) {
  const Error error =
      describe_quic_verify_failure(failure_with(GNUTLS_CERT_UNEXPECTED_OWNER), "localhost");

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(), "TLS: certificate for wrong.example does not match host localhost");
}

TEST(QuicVerifyFailureTest, AnUnknownIssuerSuggestsCacertEvenWhenTheNameIsWrongToo) {
  const Error error = describe_quic_verify_failure(
      failure_with(GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_UNEXPECTED_OWNER), "localhost");

  EXPECT_EQ(error.message(),
            "TLS: certificate for localhost is not signed by a trusted CA (self-signed or unknown "
            "issuer); use --cacert FILE to trust its CA");
}

TEST(QuicVerifyFailureTest, AnExpiredCertificateSaysWhen) {
  QuicTlsVerifyFailure failure = failure_with(GNUTLS_CERT_EXPIRED);
  failure.leaf_expired = true;

  EXPECT_EQ(describe_quic_verify_failure(failure, "localhost").message(),
            "TLS: certificate for localhost expired on 2024-02-01 00:00:00 UTC");
  failure.leaf_expired = false;  // an issuer expired, not the server's own
  EXPECT_EQ(describe_quic_verify_failure(failure, "localhost").message(),
            "TLS: a certificate in the chain for localhost has expired");
}

TEST(QuicVerifyFailureTest, ANotYetValidCertificateAsksAboutTheClock) {
  QuicTlsVerifyFailure failure = failure_with(GNUTLS_CERT_NOT_ACTIVATED);
  failure.leaf_not_yet_valid = true;

  EXPECT_EQ(describe_quic_verify_failure(failure, "localhost").message(),
            "TLS: certificate for localhost is not valid until 2024-01-01 00:00:00 UTC (is this "
            "computer's clock right?)");
}

TEST(QuicVerifyFailureTest, AVerificationThatCouldNotRunSaysWhy) {
  QuicTlsVerifyFailure failure;
  failure.problem = "No certificate was found.";

  EXPECT_EQ(describe_quic_verify_failure(failure, "localhost").message(),
            "TLS: cannot verify the certificate of localhost: No certificate was found.");
}

TEST(QuicTlsContextTest, AnUnreadableCaFileIsATlsErrorNamingIt) {
  auto context = QuicTlsContext::create("/nonexistent/ca.pem", false);

  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().category(), ErrorCategory::tls);
  EXPECT_EQ(context.error().message().rfind("TLS: cannot load CA file '/nonexistent/ca.pem': ", 0),
            0u)
      << context.error().message();
}

TEST(QuicTlsContextTest, InsecureNeedsNoTrustStore) {
  auto context = QuicTlsContext::create("/nonexistent/ca.pem", true);

  ASSERT_TRUE(context) << context.error().message();
  EXPECT_TRUE((*context)->insecure());
}

}  // namespace
}  // namespace sluice
