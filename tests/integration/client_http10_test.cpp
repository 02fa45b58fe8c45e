// VersionPolicy::http1_0 against the in-process TestServer and nginx: the request line
// says HTTP/1.0, a connection is used again only when the server answers
// "Connection: keep-alive" (curl's rule), a body of unknown length is refused before
// anything connects, and over TLS ALPN offers http/1.0.
#include <gtest/gtest.h>

#include <string>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::http_response;
using test::ServerConnection;
using test::TestServer;

Request http10(const std::string& url) {
  Request request = Request::get(url);
  request.version = VersionPolicy::http1_0;
  return request;
}

// Answers every request on a connection with `extra` headers, until the client closes.
TestServer::Handler answer_all(std::vector<std::pair<std::string, std::string>> extra) {
  return [extra](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      EXPECT_EQ(request->version, "HTTP/1.0");
      if (!conn.write(http_response(200, request->body.empty() ? "ok" : request->body, extra))) {
        return;
      }
    }
  };
}

std::string fetch_body(Client& client, Request request, ResponseHead* head = nullptr) {
  auto response = client.fetch(std::move(request));
  EXPECT_TRUE(response.ok()) << response.error().message();
  if (!response) return {};
  if (head != nullptr) *head = response->head();
  auto body = response->body.read_all();
  EXPECT_TRUE(body.ok()) << body.error().message();
  return body ? *body : std::string();
}

TEST(ClientHttp10, RequestLineSaysHttp10AndAnHttp11AnswerWithoutKeepAliveCloses) {
  // A 1.1 answer with no Connection header would keep a 1.1 connection open; to a 1.0
  // request the server owes nothing of the kind.
  TestServer server(answer_all({}));
  Client client = test::make_client();
  ResponseHead first, second;
  EXPECT_EQ(fetch_body(client, http10(server.url("/a")), &first), "ok");
  EXPECT_EQ(fetch_body(client, http10(server.url("/b")), &second), "ok");
  EXPECT_EQ(first.version, HttpVersion::http1_1);  // what the server spoke
  EXPECT_FALSE(second.timing.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 2u);
}

TEST(ClientHttp10, KeepAliveAnswerKeepsTheConnection) {
  TestServer server(answer_all({{"Connection", "Keep-Alive"}}));
  Client client = test::make_client();
  ResponseHead second;
  EXPECT_EQ(fetch_body(client, http10(server.url("/a"))), "ok");
  EXPECT_EQ(fetch_body(client, http10(server.url("/b")), &second), "ok");
  EXPECT_TRUE(second.timing.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(ClientHttp10, BodyOfKnownLengthGoesWithContentLength) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    ASSERT_TRUE(request);
    EXPECT_EQ(request->version, "HTTP/1.0");
    EXPECT_FALSE(request->chunked);
    EXPECT_EQ(request->headers.get("content-length").value_or(""), "5");
    conn.write(http_response(200, request->body));
  });
  Client client = test::make_client();
  auto writer = BodyWriter::create();
  Request request = http10(server.url("/up"));
  request.method = "POST";
  request.body = StreamBody{writer, 5};
  auto pending = client.send(std::move(request));
  ASSERT_TRUE(writer->write("hello").ok());
  writer->close();
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello");
}

TEST(ClientHttp10, BodyOfUnknownLengthIsRefusedBeforeConnecting) {
  TestServer server(answer_all({}));
  Client client = test::make_client();
  Request request = http10(server.url("/up"));
  request.method = "POST";
  request.body = StreamBody{BodyWriter::create(), std::nullopt};
  auto response = client.fetch(std::move(request));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code(), ErrorCode::usage);
  EXPECT_NE(response.error().message().find("HTTP/1.0"), std::string::npos)
      << response.error().message();
  EXPECT_EQ(server.connections_accepted(), 0u);
}

TEST(ClientHttp10, OverTlsAlpnSaysHttp10AndNginxAnswers) {
  test::TestEnv env;
  ClientOptions options;
  options.tls.ca_file = env.get("SLUICE_TEST_CA");
  Client client = test::make_client(std::move(options));
  ResponseHead head;
  EXPECT_FALSE(
      fetch_body(client, http10(env.get("SLUICE_NGINX_HTTPS_URL") + "/small.txt"), &head).empty());
  ASSERT_TRUE(head.tls.has_value());
  EXPECT_EQ(head.tls->alpn, "http/1.0");
  EXPECT_NE(head.version, HttpVersion::http2);
}

}  // namespace
}  // namespace sluice
