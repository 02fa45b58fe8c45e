// Proxies: http:// through a forwarding proxy, https:// through a CONNECT tunnel with
// TLS and ALPN end to end (HTTP/2 inside), Basic proxy credentials, no_proxy, HTTP/3
// kept off proxies, and a refused tunnel reported with the proxy's name and answer.
// Against the fixture's real squid (plain and with Basic auth) and nginx; a refusing
// proxy is an in-process server. Which way a response came is its remote_port: the
// proxy's port when it went through the proxy, the server's when it went direct.
#include <gtest/gtest.h>

#include <string>

#include <future>

#include "sluice/sluice.hpp"
#include "support/client_on_clock.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

std::uint16_t port_of(const std::string& url) { return Url::parse(url).value().port; }

class ClientProxy : public ::testing::Test {
 protected:
  Client client_through(std::string proxy, std::string no_proxy = {}) {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.proxy.url = std::move(proxy);
    options.proxy.no_proxy = std::move(no_proxy);
    return test::make_client(std::move(options));
  }
  std::string authenticated_proxy() const {
    const std::string proxy = env_.get("SLUICE_SQUID_AUTH_PROXY");
    return "http://" + env_.get("SLUICE_SQUID_AUTH_USER") + ":" +
           env_.get("SLUICE_SQUID_AUTH_PASSWORD") + "@" + proxy.substr(proxy.find("://") + 3);
  }
  void expect_file(Result<Response>& response, const char* name) {
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(response->status, 200);
    auto body = response->body.read_all(8u << 20);
    ASSERT_TRUE(body.ok()) << body.error().describe();
    EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of(name));
  }
  test::TestEnv env_;
};

TEST_F(ClientProxy, HttpGoesThroughAForwardingProxy) {
  const std::string proxy = env_.get("SLUICE_SQUID_PROXY");
  Client client = client_through(proxy);
  auto response = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/1m.bin"));
  expect_file(response, "1m.bin");
  EXPECT_EQ(response->remote_port, port_of(proxy)) << "the request did not go through the proxy";
}

TEST_F(ClientProxy, HttpsTunnelsThroughConnectWithHttp2Inside) {
  const std::string proxy = env_.get("SLUICE_SQUID_PROXY");
  Client client = client_through(proxy);
  Request request = Request::get(env_.get("SLUICE_NGINX_H2_URL") + "/1m.bin");
  request.version = VersionPolicy::http2;
  auto response = client.fetch(request);
  expect_file(response, "1m.bin");
  EXPECT_EQ(response->version, HttpVersion::http2) << "ALPN did not reach the server";
  EXPECT_EQ(response->remote_port, port_of(proxy));
  ASSERT_TRUE(response->timing.tls_end.has_value());
  // A second request rides the same tunnel.
  auto again = client.fetch(request);
  expect_file(again, "1m.bin");
  EXPECT_TRUE(again->timing.connection_reused);
}

TEST_F(ClientProxy, AProxyThatWantsCredentialsRefusesTheTunnelAndSaysSo) {
  const std::string proxy = env_.get("SLUICE_SQUID_AUTH_PROXY");
  Client client = client_through(proxy);
  auto response = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTPS_URL") + "/small.txt"));
  ASSERT_FALSE(response.ok()) << "a tunnel opened without credentials";
  EXPECT_EQ(response.error().code(), ErrorCode::proxy_refused) << response.error().describe();
  const std::string& message = response.error().message();
  EXPECT_NE(message.find("proxy 127.0.0.1:" + std::to_string(port_of(proxy)) + " refused"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("407"), std::string::npos) << message;
  EXPECT_NE(message.find("credentials"), std::string::npos) << message;
}

TEST_F(ClientProxy, CredentialsInTheProxyUrlOpenTunnelsAndForwardedRequests) {
  Client client = client_through(authenticated_proxy());
  auto tunnelled = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTPS_URL") + "/1m.bin"));
  expect_file(tunnelled, "1m.bin");
  auto forwarded = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/1m.bin"));
  expect_file(forwarded, "1m.bin");
}

TEST_F(ClientProxy, AForwardingProxyThatWantsCredentialsAnswersWith407) {
  // Without a tunnel the proxy's refusal is an HTTP response, as curl shows it.
  Client client = client_through(env_.get("SLUICE_SQUID_AUTH_PROXY"));
  auto response = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->status, 407);
  EXPECT_TRUE(response->headers.contains("proxy-authenticate"));
}

TEST_F(ClientProxy, NoProxyHostsAreReachedDirectly) {
  const std::string server = env_.get("SLUICE_NGINX_HTTP_URL");
  Client client = client_through(env_.get("SLUICE_SQUID_PROXY"), "localhost, 127.0.0.0/8");
  auto response = client.fetch(Request::get(server + "/1m.bin"));
  expect_file(response, "1m.bin");
  EXPECT_EQ(response->remote_port, port_of(server)) << "a no_proxy host went through the proxy";
}

TEST_F(ClientProxy, Http3StaysOffTheProxy) {
  Client client = client_through(env_.get("SLUICE_SQUID_PROXY"));
  Request only = Request::get(env_.get("SLUICE_CADDY_URL") + "/small.txt");
  only.version = VersionPolicy::http3_only;
  auto refused = client.fetch(only);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().category(), ErrorCategory::usage);
  EXPECT_NE(refused.error().message().find("HTTP/3 cannot go through proxy"), std::string::npos)
      << refused.error().message();
  Request preferred = only;
  preferred.version = VersionPolicy::http3;  // may fall back: goes through the tunnel on TCP
  auto response = client.fetch(preferred);
  expect_file(response, "small.txt");
  EXPECT_NE(response->version, HttpVersion::http3);
}

TEST_F(ClientProxy, ARefusedTunnelNamesTheProxyTheTargetAndTheAnswer) {
  TestServer proxy([](ServerConnection& conn) {
    auto request = conn.read_request_head();
    if (!request) return;
    EXPECT_EQ(request->method, "CONNECT");
    EXPECT_EQ(request->target, "blocked.example:443");
    conn.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
  });
  Client client = client_through("127.0.0.1:" + std::to_string(proxy.port()));
  auto response = client.fetch(Request::get("https://blocked.example/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code(), ErrorCode::proxy_refused);
  EXPECT_EQ(response.error().message(),
            "proxy 127.0.0.1:" + std::to_string(proxy.port()) +
                " refused the tunnel to blocked.example:443 (403 Forbidden)");
}

TEST_F(ClientProxy, AProxyThatNeverAnswersTheTunnelTimesOutNamingIt) {
  std::promise<void> asked;
  auto asked_future = asked.get_future();
  TestServer proxy([&asked](ServerConnection& conn) {
    if (!conn.read_request_head()) return;
    asked.set_value();
    conn.wait_peer_closed(30s);  // accepts, reads the CONNECT, never answers
  });
  test::ManualClock clock;
  ClientOptions options;
  options.proxy.url = "127.0.0.1:" + std::to_string(proxy.port());
  auto client = test::client_on(clock, options).value();
  Request request = Request::get("https://silent.example/");
  request.timeouts.connect = 120s;  // the tunnel's own limit (the TLS timeout) ends it
  request.timeouts.tls = 5s;
  PendingResponse pending = client.send(request);
  ASSERT_EQ(asked_future.wait_for(30s), std::future_status::ready);
  ASSERT_TRUE(test::advance(clock, client, 5s));
  auto response = pending.wait();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code(), ErrorCode::connect_timeout) << response.error().describe();
  EXPECT_NE(response.error().message().find("did not answer the request for the tunnel"),
            std::string::npos)
      << response.error().message();
}

TEST_F(ClientProxy, AProxyThatIsNotThereIsAConnectErrorNamingIt) {
  Client client = client_through("127.0.0.1:1");  // nothing listens on port 1
  auto response = client.fetch(Request::get("http://example.org/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::connect);
  EXPECT_EQ(response.error().message().rfind("proxy 127.0.0.1:1: ", 0), 0u)
      << response.error().message();
}

TEST_F(ClientProxy, UrlCredentialsBecomeBasicAuthorizationAndLeaveTheUrl) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    const std::string authorization(request->headers.get("authorization").value_or("none"));
    conn.write(test::http_response(200, authorization));
  });
  auto client = test::make_client();
  const std::string url =
      "http://Aladdin:open%20sesame@127.0.0.1:" + std::to_string(server.port()) + "/";
  auto response = client.fetch(Request::get(url));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->body.read_all().value(), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(response->effective_url.find("Aladdin"), std::string::npos)
      << "credentials stayed in the effective URL: " << response->effective_url;
}

// An https:// proxy (stunnel in front of squid): TLS to the proxy, then forwarding or
// CONNECT as over http://; the target's TLS runs inside the proxy's.
class ClientHttpsProxy : public ClientProxy {
 protected:
  Client client_with(bool trust_proxy, bool insecure_proxy = false) {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.proxy.url = env_.get("SLUICE_HTTPS_PROXY");
    if (trust_proxy) options.proxy.ca_file = env_.get("SLUICE_TEST_CA");
    options.proxy.insecure = insecure_proxy;
    return test::make_client(std::move(options));
  }
};

TEST_F(ClientHttpsProxy, ForwardsHttpAndTunnelsHttp2InsideTls) {
  Client client = client_with(true);
  const std::uint16_t proxy_port = port_of(env_.get("SLUICE_HTTPS_PROXY"));
  auto plain = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/1m.bin"));
  expect_file(plain, "1m.bin");
  EXPECT_EQ(plain->remote_port, proxy_port);
  auto secure = client.fetch(Request::get(env_.get("SLUICE_NGINX_H2_URL") + "/1m.bin"));
  expect_file(secure, "1m.bin");
  EXPECT_EQ(secure->remote_port, proxy_port);
  EXPECT_EQ(secure->version, HttpVersion::http2);  // ALPN end to end, through two TLS layers
}

TEST_F(ClientHttpsProxy, AnUntrustedProxyCertificateFailsNamingTheProxy) {
  Client client = client_with(false);
  auto response = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  const std::string proxy = env_.get("SLUICE_HTTPS_PROXY");
  EXPECT_EQ(response.error().message().rfind(
                "proxy " + proxy.substr(proxy.find("://") + 3) + ": TLS: ", 0),
            0u)
      << response.error().message();
  Client insecure = client_with(false, true);
  auto passed = insecure.fetch(Request::get(env_.get("SLUICE_NGINX_HTTPS_URL") + "/small.txt"));
  expect_file(passed, "small.txt");  // the target's certificate is still checked
}

}  // namespace
}  // namespace sluice
