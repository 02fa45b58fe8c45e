// SOCKS5 proxies against the fixture's microsocks: socks5h:// (the proxy resolves the
// target's name) and socks5:// (resolved here, sent as an address), plain and TLS
// with HTTP/2 inside, and a target the proxy cannot reach, reported with the proxy's
// name and answer. Which way a response came is its remote_port, the proxy's.
#include <gtest/gtest.h>

#include <string>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

// The port of "scheme://host:port" (Url parses http and https only).
std::uint16_t port_of(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

class ClientSocks : public ::testing::Test {
 protected:
  // The fixture's SOCKS5 proxy with `scheme` ("socks5" or "socks5h").
  std::string proxy(const char* scheme) const {
    const std::string url = env_.get("SLUICE_SOCKS5_PROXY");
    return scheme + url.substr(url.find("://"));
  }
  Client client_through(const std::string& proxy_url) const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.proxy.url = proxy_url;
    return test::make_client(std::move(options));
  }
  void expect_file(Result<Response>& response, const char* name) const {
    ASSERT_TRUE(response.ok()) << response.error().describe();
    auto body = response->body.read_all(8u << 20);
    ASSERT_TRUE(body.ok()) << body.error().describe();
    EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of(name));
  }
  test::TestEnv env_;
};

TEST_F(ClientSocks, BothFlavoursCarryPlainAndTlsWithHttp2Inside) {
  for (const char* scheme : {"socks5h", "socks5"}) {
    SCOPED_TRACE(scheme);
    const std::string via = proxy(scheme);
    Client client = client_through(via);
    auto plain = client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/1m.bin"));
    expect_file(plain, "1m.bin");
    EXPECT_EQ(plain->remote_port, port_of(env_.get("SLUICE_SOCKS5_PROXY")));
    Request request = Request::get(env_.get("SLUICE_NGINX_H2_URL") + "/1m.bin");  // localhost
    request.version = VersionPolicy::http2;
    auto tls = client.fetch(request);
    expect_file(tls, "1m.bin");
    EXPECT_EQ(tls->version, HttpVersion::http2);
    EXPECT_EQ(tls->remote_port, port_of(env_.get("SLUICE_SOCKS5_PROXY")));
  }
}

TEST_F(ClientSocks, ATargetTheProxyCannotReachIsRefusedWithItsAnswer) {
  // A port with nothing listening: bound, then closed.
  std::uint16_t closed_port = 0;
  {
    test::TestServer gone([](test::ServerConnection&) {});
    closed_port = gone.port();
  }
  Client client = client_through(proxy("socks5h"));
  auto response =
      client.fetch(Request::get("http://127.0.0.1:" + std::to_string(closed_port) + "/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code(), ErrorCode::proxy_refused) << response.error().describe();
  const std::string& message = response.error().message();
  EXPECT_EQ(message.rfind(
                "proxy 127.0.0.1:" + std::to_string(port_of(env_.get("SLUICE_SOCKS5_PROXY"))) +
                    ": SOCKS5: the proxy could not reach 127.0.0.1:" + std::to_string(closed_port),
                0),
            0u)
      << message;
}

}  // namespace
}  // namespace sluice
