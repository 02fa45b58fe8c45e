// The cookie engine against the real nginx (tests/support/servers/nginx.conf.in):
// /cookies/set sets cookies on a 302 to /cookies/echo, which answers with the
// Cookie header it got.
#include <gtest/gtest.h>

#include <memory>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

class ClientCookies : public ::testing::Test {
 protected:
  std::string http(const std::string& path) const {
    return env_.get("SLUICE_NGINX_HTTP_URL") + path;
  }
  // nginx under a name that is not loopback (loopback http counts as secure, as in
  // curl), resolved to it through ClientOptions::resolve.
  std::string named(const char* key, const std::string& path) const {
    std::string base = env_.get(key);
    const std::size_t host = base.find("://") + 3;
    base.replace(host, base.rfind(':') - host, "cookies.test");
    return base + path;
  }
  Client make_client(std::shared_ptr<CookieJar> jar) const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.tls.insecure = true;  // the test certificate names localhost, not cookies.test
    options.routing.resolve = {"cookies.test:*:127.0.0.1"};
    options.cookie_jar = std::move(jar);
    return test::make_client(options);
  }
  static std::string echo(Client& client, Request request) {
    request.redirects.follow = true;
    auto response = client.fetch(std::move(request));
    if (!response) return "error: " + response.error().message();
    return response->body.read_all().value();
  }
  test::TestEnv env_;
};

TEST_F(ClientCookies, CarriedAcrossARedirectAndForeignOrSecureOnesRefusedOverHttp) {
  auto jar = std::make_shared<CookieJar>();
  auto client = make_client(jar);
  EXPECT_EQ(echo(client, Request::get(named("SLUICE_NGINX_HTTP_URL", "/cookies/set"))),
            "cookie=[sid=abc123]\n");
  const auto cookies = jar->cookies();
  ASSERT_EQ(cookies.size(), 1u);
  EXPECT_EQ(cookies[0].domain, "cookies.test");
  EXPECT_EQ(cookies[0].path, "/cookies");
  EXPECT_TRUE(cookies[0].http_only);
  EXPECT_TRUE(cookies[0].host_only);
}

TEST_F(ClientCookies, SecureCookieIsSetOverHttpsAndNotSentOverHttp) {
  auto jar = std::make_shared<CookieJar>();
  auto client = make_client(jar);
  for (const char* base : {"SLUICE_NGINX_HTTPS_URL", "SLUICE_NGINX_H2_URL"}) {
    jar->clear();
    EXPECT_EQ(echo(client, Request::get(named(base, "/cookies/set"))),
              "cookie=[sid=abc123; sec=1]\n")
        << base;
  }
  EXPECT_EQ(echo(client, Request::get(named("SLUICE_NGINX_HTTP_URL", "/cookies/echo"))),
            "cookie=[sid=abc123]\n");
}

TEST_F(ClientCookies, LoopbackHttpIsSecureEnoughAsInCurl) {
  auto jar = std::make_shared<CookieJar>();
  auto client = make_client(jar);
  EXPECT_EQ(echo(client, Request::get(http("/cookies/set"))), "cookie=[sid=abc123; sec=1]\n");
}

TEST_F(ClientCookies, RequestsOwnCookieHeaderFollowsTheJars) {
  auto jar = std::make_shared<CookieJar>();
  auto client = make_client(jar);
  Request request = Request::get(http("/cookies/set"));
  request.headers.add("Cookie", "mine=1");
  request.headers.add("Cookie", "also=2");
  EXPECT_EQ(echo(client, std::move(request)), "cookie=[sid=abc123; sec=1; mine=1; also=2]\n");
}

TEST_F(ClientCookies, OneJarServesSeveralClientsAndNoJarSendsNothing) {
  auto jar = std::make_shared<CookieJar>();
  auto first = make_client(jar);
  auto second = make_client(jar);
  auto without = make_client(nullptr);
  EXPECT_EQ(echo(first, Request::get(http("/cookies/set"))), "cookie=[sid=abc123; sec=1]\n");
  EXPECT_EQ(echo(second, Request::get(http("/cookies/echo"))), "cookie=[sid=abc123; sec=1]\n");
  EXPECT_EQ(echo(without, Request::get(http("/cookies/set"))), "cookie=[]\n");
}

}  // namespace
}  // namespace sluice
