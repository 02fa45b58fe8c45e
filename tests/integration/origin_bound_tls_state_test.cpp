// What a Client learns over TLS from one origin serves that origin only: a TCP TLS
// session and a QUIC session ticket (with its 0-RTT) are offered again only under the
// name the certificate was verified for, and an Alt-Svc entry applies to the origin
// that sent it. An Alt-Svc alternative must hold a certificate for the origin's name,
// whatever name the alternative is reached by (RFC 7838 section 2.1).
//
// Each server here answers a resumption under any name (one server, one ticket key),
// so only the client's cache keeps the names apart; a resumption under the right name
// shows the server would have taken the other one.
#include <gtest/gtest.h>

#include <string>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/quic_test_udp_server.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::fetch_all;

// The test certificate names localhost and 127.0.0.1: two origins, one server.
// localhost is fixed to 127.0.0.1, where the servers listen.
ClientOptions resuming_options() {
  ClientOptions options;
  options.tls.ca_file = test::test_certs().ca_file;
  options.tls.early_data = true;
  options.pool.idle_timeout = 20ms;  // each fetch below opens a new connection
  options.routing.resolve = {"localhost:*:127.0.0.1"};
  return options;
}

std::string https(const std::string& host, std::uint16_t port, const std::string& path = "/") {
  return "https://" + host + ":" + std::to_string(port) + path;
}

// The pool closed the idle connection: the next fetch needs a new one.
void wait_for_no_connection(Client& client) {
  ASSERT_TRUE(test::eventually([&] { return client.stats().connections == 0; }))
      << "the pool kept its idle connection past its 20 ms idle timeout";
}

// A TLS test server (HTTP/1.1) that answers every request with `body`, plus `headers`.
test::TestServer tls_server(std::string body,
                            std::vector<std::pair<std::string, std::string>> headers = {}) {
  test::TestServerOptions tls;
  tls.tls = true;
  return test::TestServer(
      [body = std::move(body), headers = std::move(headers)](test::ServerConnection& conn) {
        while (conn.read_request()) {
          if (!conn.write(test::http_response(200, body, headers))) return;
        }
      },
      tls);
}

TEST(OriginBoundTlsState, TcpSessionResumesOnlyUnderTheNameItWasVerifiedFor) {
  test::TestServer server = tls_server("ok");
  Client client = test::make_client(resuming_options());
  for (const char* host : {"localhost", "127.0.0.1", "localhost"}) {
    SCOPED_TRACE(host);
    auto fetched = fetch_all(client, Request::get(https(host, server.port())));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
    ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));
  }
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.tls_full_handshakes, 2u) << "127.0.0.1 was offered localhost's session";
  EXPECT_EQ(stats.tls_resumed_handshakes, 1u) << "the server resumes: localhost's second";
}

TEST(OriginBoundTlsState, QuicTicketAndItsEarlyDataGoOnlyToTheNameItWasVerifiedFor) {
  test::QuicTestServerOptions options;
  options.cert_file = test::test_certs().server_cert;
  options.key_file = test::test_certs().server_key;
  options.session_tickets = true;
  options.accept_early_data = true;
  test::QuicTestUdpServer server(std::move(options));
  Client client = test::make_client(resuming_options());
  auto fetch = [&](const char* host) {
    Request request = Request::get(https(host, server.port()));
    request.version = VersionPolicy::http3_only;
    auto fetched = fetch_all(client, request);
    ASSERT_TRUE(fetched.ok()) << host << ": " << fetched.error().message();
    ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));
  };
  ASSERT_NO_FATAL_FAILURE(fetch("localhost"));
  ASSERT_NO_FATAL_FAILURE(fetch("127.0.0.1"));
  ClientStats stats = client.stats();
  EXPECT_EQ(stats.quic_resumed_handshakes, 0u) << "127.0.0.1 was offered localhost's ticket";
  EXPECT_EQ(stats.quic_early_requests, 0u) << "a request went early to another origin";
  ASSERT_NO_FATAL_FAILURE(fetch("localhost"));
  stats = client.stats();
  EXPECT_EQ(stats.quic_resumed_handshakes, 1u) << "the server resumes: localhost's second";
  EXPECT_EQ(stats.quic_early_requests, 1u);
}

// The h3 server behind `origin`'s Alt-Svc: the first fetch learns it over TCP, the
// second goes there when its certificate holds for the origin, else stays on TCP.
struct AltSvcCase {
  test::QuicTestUdpServer alternative;
  test::TestServer origin;
  Client client;

  AltSvcCase(const std::string& cert, const std::string& key, const std::string& alt_host)
      : alternative(quic_options(cert, key)),
        origin(tls_server(
            "over tcp", {{"Alt-Svc", "h3=\"" + alt_host + ":" + std::to_string(alternative.port()) +
                                         "\"; ma=3600"}})),
        client(make(alt_host + ":" + std::to_string(alternative.port()) + ":127.0.0.1")) {}

  static test::QuicTestServerOptions quic_options(const std::string& cert, const std::string& key) {
    test::QuicTestServerOptions options;
    options.cert_file = cert;
    options.key_file = key;
    options.handler = [](const test::QuicTestRequest&) {
      return test::QuicTestResponse::text("over h3");
    };
    return options;
  }
  static Client make(std::string resolve_alt) {
    ClientOptions options = resuming_options();
    options.routing.resolve.push_back(std::move(resolve_alt));
    options.pool.http3_fallback_after = 10s;  // a failed handshake falls back at once
    return test::make_client(std::move(options));
  }
  // The body and version of a fetch from `host` at the origin's port.
  std::pair<std::string, HttpVersion> fetch(const std::string& host) {
    auto fetched = fetch_all(client, Request::get(https(host, origin.port())));
    EXPECT_TRUE(fetched.ok()) << host << ": " << fetched.error().message();
    EXPECT_TRUE(test::eventually([&] { return client.stats().connections == 0; }));
    if (!fetched.ok()) return {"", HttpVersion::http1_1};
    return {fetched->body, fetched->version};
  }
};

TEST(OriginBoundTlsState, AltSvcAlternativeUnderAnotherNameServesWithTheOriginsCertificate) {
  // The alternative is reached as alt.test; its certificate names localhost, the
  // origin, and not alt.test: that is the certificate it must hold.
  AltSvcCase alt(test::test_certs().server_cert, test::test_certs().server_key, "alt.test");
  EXPECT_EQ(alt.fetch("localhost").first, "over tcp");
  // Another origin on the same server has learned nothing from localhost's Alt-Svc.
  EXPECT_EQ(alt.fetch("127.0.0.1").first, "over tcp");
  const auto second = alt.fetch("localhost");
  EXPECT_EQ(second.first, "over h3");
  EXPECT_EQ(second.second, HttpVersion::http3);
  EXPECT_EQ(alt.alternative.requests().size(), 1u);
}

TEST(OriginBoundTlsState, AltSvcAlternativeWithACertificateOnlyForItsOwnNameIsNotUsed) {
  // wrong.example's certificate is valid, for wrong.example: the name the
  // alternative is reached by, not the origin's.
  AltSvcCase alt(test::test_certs().wrong_host_cert, test::test_certs().wrong_host_key,
                 "wrong.example");
  EXPECT_EQ(alt.fetch("localhost").first, "over tcp");
  const auto second = alt.fetch("localhost");
  EXPECT_EQ(second.first, "over tcp");
  EXPECT_EQ(second.second, HttpVersion::http1_1);
  EXPECT_TRUE(alt.alternative.requests().empty()) << "a request went to the alternative";
}

}  // namespace
}  // namespace sluice
