// QuicConnection against real QUIC servers, the connection's life: the handshake
// (ALPN h3) with gtlsserver and caddy, certificate and host name checks, a closed
// or silent UDP port, the idle timeout, a local close.

#include <sys/socket.h>

#include "quic_test_peer.hpp"
#include "support/test_env.hpp"

namespace sluice::quic_test {
namespace {

using namespace std::chrono_literals;

TEST_F(QuicConnectionTest, CompletesTheHandshakeWithAlpnH3AgainstGtlsserver) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());

  auto conn = handshake(options_for(server.port()));

  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
  EXPECT_EQ(app_.handshake_calls, 1);
  EXPECT_TRUE(conn->codec().handshake_completed());
  EXPECT_EQ(conn->codec().alpn(), "h3");
  EXPECT_FALSE(app_.closed);
  EXPECT_EQ(trace_lines_.back(), "c1 h3: handshake done (ALPN h3), full handshake");
  // The server's control stream (unidirectional, server-initiated: id 3) arrives
  // and starts with its stream type, 0x00.
  EXPECT_TRUE(run_until(loop_, [&] { return app_.in.count(3) != 0; }));
}

TEST_F(QuicConnectionTest, CompletesTheHandshakeWithAlpnH3AgainstCaddy) {
  test::TestEnv env;
  const std::string url = env.get("SLUICE_CADDY_URL");
  ASSERT_FALSE(url.empty());
  QuicOptions options = options_for(port_of_url(url));
  options.ca_file = env.get("SLUICE_TEST_CA");

  auto conn = handshake(std::move(options));

  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
  EXPECT_EQ(conn->codec().alpn(), "h3");
}

TEST_F(QuicConnectionTest, ACertificateForAnotherHostFailsWithATlsError) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.wrong_host_cert, certs.wrong_host_key, htdocs());

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_FALSE(app_.handshake_completed);
  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(), "TLS: certificate for wrong.example does not match host localhost");
  EXPECT_EQ(app_.closed_calls, 1);
  EXPECT_TRUE(conn->is_closed());
}

TEST_F(QuicConnectionTest, AServerNamedByAddressIsCheckedAgainstItsAddress) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());

  auto conn = handshake(options_for(server.port(), "127.0.0.1"));

  ASSERT_TRUE(conn);
  EXPECT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
}

TEST_F(QuicConnectionTest, AnUnknownCaFailsWithATlsErrorSuggestingCacert) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.untrusted_cert, certs.untrusted_key, htdocs());

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(),
            "TLS: certificate for localhost is not signed by a trusted CA (self-signed or unknown "
            "issuer); use --cacert FILE to trust its CA");
}

TEST_F(QuicConnectionTest, TheSystemTrustStoreDoesNotTrustTheTestCa) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.ca_file.clear();

  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_NE(error.message().find("is not signed by a trusted CA"), std::string::npos)
      << error.message();
}

TEST_F(QuicConnectionTest, InsecureAcceptsACertificateForAnotherHost) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.wrong_host_cert, certs.wrong_host_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.ca_file.clear();
  options.insecure = true;

  auto conn = handshake(std::move(options));

  ASSERT_TRUE(conn);
  EXPECT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
}

TEST_F(QuicConnectionTest, AClosedUdpPortFailsWithAConnectErrorNamingTheAddress) {
  const std::uint16_t port = free_udp_port();  // nothing listens: ICMP port unreachable

  auto conn = connect(options_for(port));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::connect);
  EXPECT_EQ(error.message(), "QUIC: UDP receive from 127.0.0.1:" + std::to_string(port) +
                                 " failed: Connection refused");
}

TEST_F(QuicConnectionTest, ASilentPeerFailsTheHandshakeWithinItsTimeout) {
  // A bound socket that never answers: no ICMP, only silence.
  const int silent = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  ASSERT_EQ(bind(silent, reinterpret_cast<const sockaddr*>(&any->storage), any->length), 0);
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  getsockname(silent, reinterpret_cast<sockaddr*>(&bound), &length);
  const std::uint16_t port = ntohs(bound.sin_port);
  QuicOptions options = options_for(port);
  options.handshake_timeout = 300ms;

  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();
  close(silent);

  EXPECT_EQ(error.category(), ErrorCategory::timeout);
  EXPECT_EQ(error.message(), "QUIC: handshake with localhost:" + std::to_string(port) +
                                 " did not complete within 300 ms");
}

TEST_F(QuicConnectionTest, AnIdleConnectionClosesWithATimeoutNamingIt) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.idle_timeout = 300ms;

  auto conn = handshake(std::move(options));
  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::timeout);
  EXPECT_EQ(error.message(), "QUIC: nothing from localhost:" + std::to_string(server.port()) +
                                 " for 300 ms (idle timeout); connection closed");
  EXPECT_EQ(trace_lines_.back(), "c1 h3: QUIC closed");  // silently (RFC 9000 10.1)
}

TEST_F(QuicConnectionTest, ALocalCloseTellsTheApplicationOnceAndEndsTheStreams) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  auto conn = handshake(options_for(server.port()));
  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed);

  conn->close(Error(ErrorCategory::cancelled, "done"));
  conn->close(Error(ErrorCategory::cancelled, "again"));

  EXPECT_EQ(app_.closed_calls, 1);
  ASSERT_TRUE(app_.closed);
  EXPECT_EQ(app_.closed->message(), "done");
  EXPECT_EQ(trace_lines_.back(), "c1 h3: QUIC closed (CONNECTION_CLOSE sent)");
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(conn->codec().bidi_streams_left(), 0u);
  EXPECT_FALSE(conn->codec().open_bidi_stream());
}

TEST_F(QuicConnectionTest, AnUnreadableCaFileFailsAtOnceWithoutTellingTheApplication) {
  QuicOptions options = options_for(4433);
  options.ca_file = "/nonexistent/ca.pem";

  auto conn = QuicConnection::connect(loop_, std::move(options), app_, trace_, 1);

  ASSERT_FALSE(conn);
  EXPECT_EQ(conn.error().category(), ErrorCategory::tls);
  EXPECT_NE(conn.error().message().find("cannot load CA file '/nonexistent/ca.pem'"),
            std::string::npos)
      << conn.error().message();
  EXPECT_EQ(app_.closed_calls, 0);
}

}  // namespace
}  // namespace sluice::quic_test
