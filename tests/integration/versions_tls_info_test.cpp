// Response::tls over every version: what the TLS handshake settled (version, cipher,
// ALPN, the server's certificate and the name it matched) over TCP TLS (OpenSSL) and
// inside QUIC (GnuTLS), the same words from both; nothing over plain TCP. A resumed
// session says so, and gives the certificate its first handshake saw.
// Each Client's pool closes an idle connection after 20 ms, so the second request
// opens a new connection that resumes; the test waits for that event, not a time.
#include <algorithm>
#include <chrono>
#include <string>

#include "support/test_server.hpp"
#include "versions.hpp"

namespace sluice {
namespace {

class VersionsTlsInfo : public test::VersionsTest {
 protected:
  bool tls() const { return wire() != test::Wire::h1 && wire() != test::Wire::h2c; }
  std::string alpn() const {
    switch (wire()) {
      case test::Wire::h1_tls: return "http/1.1";
      case test::Wire::h2: return "h2";
      case test::Wire::h3: return "h3";
      default: return "";
    }
  }
  // The head of a response whose body was read whole (so its connection is idle).
  Result<ResponseHead> fetch_small(Client& client) {
    auto response = client.fetch(request_for(test::Need::files, "/small.txt"));
    if (!response) return std::move(response).error();
    if (auto body = response->body.read_all(); !body) return std::move(body).error();
    return response->head();
  }
};

// The test certificate (tests/support/servers): CN=localhost, SANs localhost and
// 127.0.0.1, issued by the test CA, valid now.
void expect_test_certificate(const PeerCertificate& cert) {
  EXPECT_EQ(cert.subject, "CN=localhost");
  EXPECT_EQ(cert.issuer, "CN=sluice test CA");
  const auto now = std::chrono::system_clock::now();
  EXPECT_LT(cert.not_before, now);
  EXPECT_GT(cert.not_after, now);
  EXPECT_NE(
      std::find(cert.subject_alt_names.begin(), cert.subject_alt_names.end(), "DNS:localhost"),
      cert.subject_alt_names.end());
}

TEST_P(VersionsTlsInfo, SaysWhatTheHandshakeSettled) {
  Client client = make_client();
  auto fetched = fetch_small(client);
  ASSERT_TRUE(fetched.ok()) << fetched.error().describe();
  const ResponseHead& head = *fetched;
  if (!tls()) {
    EXPECT_FALSE(head.tls.has_value()) << "TLS information over plain TCP";
    return;
  }
  ASSERT_TRUE(head.tls.has_value());
  const TlsInfo& tls = *head.tls;
  EXPECT_EQ(tls.version, "TLSv1.3");
  EXPECT_TRUE(tls.cipher.starts_with("TLS_")) << tls.cipher;  // a TLS 1.3 suite's IANA name
  EXPECT_EQ(tls.alpn, alpn());
  EXPECT_FALSE(tls.resumed) << "a new Client's first handshake resumed";
  ASSERT_TRUE(tls.certificate.has_value());
  expect_test_certificate(*tls.certificate);
  EXPECT_EQ(tls.matched_name, "localhost");
  EXPECT_EQ(head.tls_verify_result, 0);
}

// Resumption needs TLS: this suite runs over the TLS wires only.
class VersionsTlsResumption : public VersionsTlsInfo {};

TEST_P(VersionsTlsResumption, AResumedSessionSaysSoAndWhatItKnows) {
  ClientOptions options;
  options.pool.idle_timeout = std::chrono::milliseconds(20);
  Client client = make_client(std::move(options));
  ASSERT_TRUE(fetch_small(client).ok());
  ASSERT_TRUE(test::eventually([&] { return client.stats().connections == 0; }))
      << "the pool kept its idle connection past its 20 ms idle timeout";
  auto second = fetch_small(client);
  ASSERT_TRUE(second.ok()) << second.error().describe();
  ASSERT_TRUE(second->tls.has_value());
  const TlsInfo& tls = *second->tls;
  EXPECT_FALSE(second->timing.connection_reused);
  EXPECT_TRUE(tls.resumed) << "the second connection did not resume";
  EXPECT_EQ(tls.version, "TLSv1.3");
  EXPECT_EQ(tls.alpn, alpn());
  // No certificate crossed the wire: OpenSSL and GnuTLS both keep the one of the
  // handshake that made the session, and that is what is given.
  ASSERT_TRUE(tls.certificate.has_value());
  expect_test_certificate(*tls.certificate);
  EXPECT_EQ(tls.matched_name, "localhost");
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsTlsInfo, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);
INSTANTIATE_TEST_SUITE_P(Versions, VersionsTlsResumption, ::testing::ValuesIn(test::tls_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
