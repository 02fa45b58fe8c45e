// Safe defaults: what a Client does with no options set. Certificates are verified,
// redirects stay on http(s), credentials stay with their origin, nothing a caller
// passes can inject bytes into the request, and every limit fails clearly.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ReceivedRequest;
using test::ServerConnection;
using test::TestServer;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

Request followed(const std::string& url) {
  Request request = Request::get(url);
  request.redirects.follow = true;
  request.timeouts.total = 10s;
  return request;
}

std::string redirect_to(std::string_view location) {
  return "HTTP/1.1 302 Found\r\nLocation: " + std::string(location) +
         "\r\nContent-Length: 0\r\n\r\n";
}

TEST(SafeDefaults, CertificatesAreVerifiedWithoutAnyOption) {
  const auto& certs = test::test_certs();
  test::TestServerOptions tls;
  tls.tls = true;
  tls.cert_file = certs.server_cert;  // valid, but signed by a CA the system does not trust
  tls.key_file = certs.server_key;
  TestServer server(
      [](ServerConnection& conn) {
        if (conn.read_request()) conn.write(test::http_response(200, "must not be read"));
      },
      tls);
  auto client = test::make_client();
  auto response =
      client.fetch(Request::get("https://localhost:" + std::to_string(server.port()) + "/"));
  ASSERT_FALSE(response.ok()) << "an untrusted certificate was accepted by default";
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_TRUE(contains(response.error().message(), "certificate for localhost"))
      << response.error().message();
}

TEST(SafeDefaults, RedirectToANonHttpSchemeIsRefused) {
  for (const std::string location : {"file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://h/"}) {
    SCOPED_TRACE(location);
    TestServer server([&location](ServerConnection& conn) {
      while (auto request = conn.read_request()) conn.write(redirect_to(location));
    });
    auto client = test::make_client();
    auto response = client.fetch(followed(server.url("/start")));
    ASSERT_FALSE(response.ok()) << "followed a redirect to " << location;
    EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
    const std::string& message = response.error().message();
    EXPECT_EQ(message.rfind("redirect: invalid Location '" + location + "'", 0), 0u) << message;
    const std::string scheme = location.substr(0, location.find(':'));
    EXPECT_TRUE(contains(message, "scheme '" + scheme + "'")) << message;
  }
}

// What a server saw of the three credential headers ("<none>" when absent).
using Seen = std::map<std::string, std::string>;

Seen credentials_of(const ReceivedRequest& request) {
  Seen seen;
  for (const char* name : {"authorization", "cookie", "proxy-authorization"}) {
    seen[name] = std::string(request.headers.get(name).value_or("<none>"));
  }
  return seen;
}

TEST(SafeDefaults, CredentialsStayWithTheirOriginAcrossRedirects) {
  std::mutex mu;
  Seen at_other_origin;
  Seen at_same_origin;
  TestServer other([&](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    {
      std::lock_guard lock(mu);
      at_other_origin = credentials_of(*request);
    }
    conn.write(test::http_response(200, "other"));
  });
  const std::string other_url = other.url("/landing");  // same host, another port
  TestServer origin([&](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      if (request->target == "/start") {
        conn.write(redirect_to("/again"));
      } else {
        {
          std::lock_guard lock(mu);
          at_same_origin = credentials_of(*request);
        }
        conn.write(redirect_to(other_url));
      }
    }
  });
  auto client = test::make_client();
  Request request = followed(origin.url("/start"));
  request.headers.add("Authorization", "Bearer secret");
  request.headers.add("Cookie", "session=1");
  request.headers.add("Proxy-Authorization", "Basic cHJveHk6cHc=");
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "other");
  std::lock_guard lock(mu);
  EXPECT_EQ(at_same_origin, (Seen{{"authorization", "Bearer secret"},
                                  {"cookie", "session=1"},
                                  {"proxy-authorization", "Basic cHJveHk6cHc="}}));
  EXPECT_EQ(
      at_other_origin,
      (Seen{{"authorization", "<none>"}, {"cookie", "<none>"}, {"proxy-authorization", "<none>"}}));
}

struct Injection {
  const char* what;
  Request request;
  const char* message_part;
};

std::vector<Injection> injections(const std::string& url) {
  std::vector<Injection> cases;
  auto with = [&](const char* what, auto change, const char* part) {
    Request request = Request::get(url);
    change(request);
    cases.push_back({what, std::move(request), part});
  };
  with(
      "CRLF in the method", [](Request& r) { r.method = "GET\r\nX-Injected: 1\r\n"; },
      "invalid request method");
  with(
      "NUL in the method", [](Request& r) { r.method = std::string("GET\0X", 5); },
      "invalid request method");
  with(
      "CRLF in the path", [&](Request& r) { r.url = url + "a\r\nX-Injected: 1"; },
      "carriage return");
  with(
      "LF in the query", [&](Request& r) { r.url = url + "?q=\nX"; }, "line feed");
  with(
      "NUL in the path", [&](Request& r) { r.url = url + std::string("a\0b", 3); }, "NUL");
  with(
      "CR in a header name", [](Request& r) { r.headers.add("X-A\rB", "v"); },
      "invalid header name");
  with(
      "LF in a header name", [](Request& r) { r.headers.add("X-A\nB", "v"); },
      "invalid header name");
  with(
      "CRLF in a header value", [](Request& r) { r.headers.add("X-A", "v\r\nX-Injected: 1"); },
      "header 'X-A'");
  with(
      "NUL in a header value", [](Request& r) { r.headers.add("X-A", std::string("v\0w", 3)); },
      "header 'X-A'");
  return cases;
}

TEST(SafeDefaults, CrLfAndNulAreRefusedInEverythingSentOnTheWire) {
  TestServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, "reached"));
  });
  auto client = test::make_client();
  for (Injection& injection : injections(server.url("/"))) {
    SCOPED_TRACE(injection.what);
    auto response = client.fetch(std::move(injection.request));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().category(), ErrorCategory::usage);
    const std::string& message = response.error().message();
    EXPECT_TRUE(contains(message, injection.message_part)) << message;
    EXPECT_FALSE(contains(message, "\r")) << "the message carries a raw CR into logs";
    EXPECT_FALSE(contains(message, "\n")) << "the message carries a raw LF into logs";
  }
  EXPECT_EQ(server.connections_accepted(), 0u) << "an invalid request reached the server";
}

TEST(SafeDefaults, UserAgentOptionWithCrLfIsRefused) {
  ClientOptions options;
  options.user_agent = "agent\r\nX-Injected: 1";
  auto client = Client::create(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().category(), ErrorCategory::usage);
  EXPECT_TRUE(contains(client.error().message(), "user_agent")) << client.error().message();
}

TEST(SafeDefaults, HeaderBlockLimitHoldsByDefault) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    // 300 KiB of header fields, over the default 256 KiB; the client stops reading.
    std::string head = "HTTP/1.1 200 OK\r\n";
    const std::string field = "X-Filler: " + std::string(1000, 'f') + "\r\n";
    while (head.size() < 300 * 1024) head += field;
    conn.write(head + "Content-Length: 0\r\n\r\n");
  });
  auto client = test::make_client();
  auto response = client.fetch(followed(server.url("/")));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(response.error().message(),
            "HTTP/1.1: response header block exceeds the limit of 262144 bytes");
}

TEST(SafeDefaults, RedirectLoopStopsAtTheDefaultLimit) {
  TestServer server([](ServerConnection& conn) {
    while (auto request = conn.read_request()) conn.write(redirect_to("/loop"));
  });
  auto client = test::make_client();
  auto response = client.fetch(followed(server.url("/loop")));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::too_large);
  EXPECT_TRUE(contains(response.error().message(), "more than 20 redirects"))
      << response.error().message();
}

TEST(SafeDefaults, DecompressionBombHitsTheDefaultRatioLimit) {
  // Gzip inside gzip: 16 MiB of zeros in a few hundred bytes, far past 1000:1.
  const std::string bomb = test::gzip(test::gzip(std::string(16u << 20, '\0')));
  TestServer server([&bomb](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, bomb, {{"Content-Encoding", "gzip, gzip"}}));
    conn.wait_peer_closed(10s);
  });
  auto client = test::make_client();
  Request request = followed(server.url("/"));
  request.decode.enabled = true;  // limits as they come
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all(256u << 20);
  ASSERT_FALSE(body.ok()) << "a bomb decoded to " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(body.error().message(),
            "decoded body exceeds 1000:1 compression ratio (possible decompression bomb)");
}

}  // namespace
}  // namespace sluice
