// A proxy's credentials go to the proxy, and the origin's to the origin: the CONNECT
// request names the target and carries Proxy-Authorization only; the request inside a
// tunnel carries no Proxy-Authorization (the fixture's squid with Basic auth relays it
// to an in-process origin that notes what arrived); a forwarding proxy's credentials
// stay behind when a redirect leads to a host the proxy does not serve.
#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <string>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::fetch_all;
using test::ServerConnection;
using test::TestServer;

// A request as a server saw it, noted for the test thread.
class Noted {
 public:
  void note(const test::ReceivedRequest& request) {
    std::lock_guard lock(mu_);
    requests_.push_back(request);
  }
  std::vector<test::ReceivedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<test::ReceivedRequest> requests_;
};

// The origin's own credentials, as -u, -H and a cookie give them.
Request with_origin_credentials(const std::string& url) {
  Request request = Request::get(url);
  request.auth = Authentication::basic("alice", "origin-secret");
  request.headers.add("Cookie", "session=origin");
  return request;
}

TEST(ProxyCredentials, TheConnectRequestCarriesOnlyTheProxysCredentials) {
  Noted noted;
  TestServer proxy([&](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    noted.note(*request);
    conn.write(test::http_response(403, "no"));
  });
  ClientOptions options;
  options.proxy.url = "http://bob:pw@127.0.0.1:" + std::to_string(proxy.port());
  Client client = test::make_client(std::move(options));
  auto fetched = fetch_all(client, with_origin_credentials("https://origin.test/"));
  ASSERT_FALSE(fetched.ok()) << "the proxy refused the tunnel";
  const auto requests = noted.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "CONNECT");
  EXPECT_EQ(requests[0].target, "origin.test:443");
  EXPECT_EQ(requests[0].headers.get("proxy-authorization"), "Basic Ym9iOnB3");  // bob:pw
  EXPECT_FALSE(requests[0].headers.contains("authorization"));
  EXPECT_FALSE(requests[0].headers.contains("cookie"));
}

TEST(ProxyCredentials, TheRequestInsideATunnelCarriesNoProxyAuthorization) {
  test::TestEnv env;
  Noted noted;
  test::TestServerOptions tls;
  tls.tls = true;
  TestServer origin(
      [&](ServerConnection& conn) {
        while (auto request = conn.read_request()) {
          noted.note(*request);
          if (!conn.write(test::http_response(200, "origin"))) return;
        }
      },
      tls);
  const std::string squid = env.get("SLUICE_SQUID_AUTH_PROXY");
  ClientOptions options;
  options.tls.ca_file = test::test_certs().ca_file;
  options.proxy.url = "http://" + env.get("SLUICE_SQUID_AUTH_USER") + ":" +
                      env.get("SLUICE_SQUID_AUTH_PASSWORD") + "@" +
                      squid.substr(squid.find("://") + 3);
  Client client = test::make_client(std::move(options));
  auto fetched = fetch_all(client, with_origin_credentials(origin.url("/")));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->body, "origin");
  const auto requests = noted.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].headers.contains("proxy-authorization"));
  EXPECT_EQ(requests[0].headers.get("authorization"), "Basic YWxpY2U6b3JpZ2luLXNlY3JldA==");
  EXPECT_EQ(requests[0].headers.get("cookie"), "session=origin");
}

TEST(ProxyCredentials, ARedirectAwayFromTheProxyLeavesItsCredentialsBehind) {
  Noted at_direct;
  TestServer direct([&](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      at_direct.note(*request);
      if (!conn.write(test::http_response(200, "direct"))) return;
    }
  });
  Noted at_proxy;
  const std::string landing = direct.url("/land");
  TestServer proxy([&](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      at_proxy.note(*request);
      const std::string moved =
          "HTTP/1.1 302 Found\r\nLocation: " + landing + "\r\nContent-Length: 0\r\n\r\n";
      if (!conn.write(moved)) return;
    }
  });
  ClientOptions options;
  options.proxy.url = "http://bob:pw@127.0.0.1:" + std::to_string(proxy.port());
  options.proxy.no_proxy = "127.0.0.1";  // the landing is reached directly
  Client client = test::make_client(std::move(options));
  Request request = Request::get("http://origin.test/start");
  request.redirects.follow = true;
  auto fetched = fetch_all(client, request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->body, "direct");
  const auto proxied = at_proxy.requests();
  ASSERT_EQ(proxied.size(), 1u);
  EXPECT_EQ(proxied[0].target, "http://origin.test/start");
  EXPECT_EQ(proxied[0].headers.get("proxy-authorization"), "Basic Ym9iOnB3");
  const auto directly = at_direct.requests();
  ASSERT_EQ(directly.size(), 1u);
  EXPECT_FALSE(directly[0].headers.contains("proxy-authorization"));
}

}  // namespace
}  // namespace sluice
