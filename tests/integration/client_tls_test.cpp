// HTTPS through the client against the TLS TestServer: verification and its errors.
#include <gtest/gtest.h>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::ServerConnection;
using test::TestServer;
using test::TestServerOptions;

TestServerOptions tls_with(const std::string& cert, const std::string& key) {
  TestServerOptions options;
  options.tls = true;
  options.cert_file = cert;
  options.key_file = key;
  return options;
}

void reply_ok(ServerConnection& conn) {
  if (conn.read_request()) conn.write(test::http_response(200, "secure"));
}

std::string localhost_url(const TestServer& server) {
  return "https://localhost:" + std::to_string(server.port()) + "/";
}

Result<Response> fetch_with_ca(const std::string& url, bool use_ca) {
  ClientOptions options;
  if (use_ca) options.tls.ca_file = test::test_certs().ca_file;
  auto client = Client::create(options);
  if (!client) return std::move(client).error();
  auto response = client->fetch(Request::get(url));
  if (response) {
    auto body = response->body.read_all();
    if (!body) return std::move(body).error();
    EXPECT_EQ(*body, "secure");
  }
  return response;
}

TEST(ClientTls, TrustedCertificateWorks) {
  const auto& certs = test::test_certs();
  TestServer server(reply_ok, tls_with(certs.server_cert, certs.server_key));
  auto response = fetch_with_ca(localhost_url(server), true);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
}

TEST(ClientTls, UnknownCaIsRejectedWithAHint) {
  const auto& certs = test::test_certs();
  TestServer server(reply_ok, tls_with(certs.server_cert, certs.server_key));
  auto response = fetch_with_ca(localhost_url(server), false);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_NE(response.error().message().find("localhost"), std::string::npos)
      << response.error().message();
}

TEST(ClientTls, WrongHostIsRejected) {
  const auto& certs = test::test_certs();
  TestServer server(reply_ok, tls_with(certs.wrong_host_cert, certs.wrong_host_key));
  auto response = fetch_with_ca(localhost_url(server), true);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_EQ(response.error().code(), ErrorCode::tls_certificate);
  EXPECT_NE(response.error().message().find("does not match"), std::string::npos)
      << response.error().message();
}

TEST(ClientTls, ExpiredCertificateIsRejected) {
  const auto& certs = test::test_certs();
  TestServer server(reply_ok, tls_with(certs.expired_cert, certs.expired_key));
  auto response = fetch_with_ca(localhost_url(server), true);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_NE(response.error().message().find("expired"), std::string::npos)
      << response.error().message();
}

TEST(ClientTls, InsecureAcceptsAnUntrustedCertificate) {
  const auto& certs = test::test_certs();
  TestServer server(reply_ok, tls_with(certs.untrusted_cert, certs.untrusted_key));
  ClientOptions options;
  options.tls.insecure = true;
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get(localhost_url(server)));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "secure");
}

TEST(ClientTls, UnreadableCaFileFailsClientCreation) {
  ClientOptions options;
  options.tls.ca_file = "/nonexistent/ca.pem";
  auto client = Client::create(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().category(), ErrorCategory::tls);
  EXPECT_NE(client.error().message().find("/nonexistent/ca.pem"), std::string::npos);
}

TEST(ClientTls, HttpsToHttpRedirectIsRefused) {
  TestServer plain([](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, "insecure"));
  });
  const std::string target = plain.url("/");
  const auto& certs = test::test_certs();
  TestServer secure(
      [&target](ServerConnection& conn) {
        if (conn.read_request()) {
          conn.write("HTTP/1.1 302 Found\r\nLocation: " + target + "\r\nContent-Length: 0\r\n\r\n");
        }
      },
      tls_with(certs.server_cert, certs.server_key));
  ClientOptions options;
  options.tls.ca_file = certs.ca_file;
  auto client = test::make_client(options);
  Request request = Request::get(localhost_url(secure));
  request.redirects.follow = true;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message().find("insecure"), std::string::npos)
      << response.error().message();
  request.redirects.allow_https_to_http = true;
  auto allowed = client.fetch(request);
  ASSERT_TRUE(allowed.ok()) << allowed.error().message();
  EXPECT_EQ(*allowed->body.read_all(), "insecure");
}

TEST(ClientTls, LargeBodyOverTlsMatches) {
  const auto& certs = test::test_certs();
  const std::string payload = test::pseudo_random_bytes(16u << 20, 9);
  TestServer server(
      [&payload](ServerConnection& conn) {
        if (conn.read_request()) conn.write(test::http_response(200, payload));
      },
      tls_with(certs.server_cert, certs.server_key));
  ClientOptions options;
  options.tls.ca_file = certs.ca_file;
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get(localhost_url(server)));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all(32u << 20);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(test::sha256_hex(*body), test::sha256_hex(payload));
}

}  // namespace
}  // namespace sluice
