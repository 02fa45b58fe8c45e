// Request::auth against nginx (Basic through auth_basic, Bearer through a location
// that compares the header), what is refused before sending, and the rule that
// credentials stay with their origin across a redirect.
#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <string>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::fetch_all;

class ClientAuth : public ::testing::Test {
 protected:
  Request get(const std::string& path, Authentication auth) const {
    Request request = Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + path);
    request.auth = std::move(auth);
    return request;
  }
  int status_of(Request request) {
    auto fetched = fetch_all(client_, std::move(request));
    EXPECT_TRUE(fetched.ok()) << fetched.error().message();
    return fetched.ok() ? fetched->status : 0;
  }
  test::TestEnv env_;
  Client client_ = test::make_client();
};

TEST_F(ClientAuth, BasicOpensWithTheRightPasswordOnly) {
  const std::string user = env_.get("SLUICE_AUTH_USER");
  EXPECT_EQ(status_of(get("/auth/small.txt", {})), 401);
  EXPECT_EQ(status_of(get("/auth/small.txt",
                          Authentication::basic(user, env_.get("SLUICE_AUTH_PASSWORD")))),
            200);
  EXPECT_EQ(status_of(get("/auth/small.txt", Authentication::basic(user, "wrong"))), 401);
}

TEST_F(ClientAuth, BearerOpensWithTheRightToken) {
  EXPECT_EQ(
      status_of(get("/bearer/small.txt", Authentication::bearer(env_.get("SLUICE_AUTH_TOKEN")))),
      200);
  EXPECT_EQ(status_of(get("/bearer/small.txt", Authentication::bearer("other"))), 401);
}

TEST_F(ClientAuth, AuthWinsOverCredentialsInTheUrlAndAnExplicitHeaderWinsOverAuth) {
  // nginx answers 200 only to the right password: which one went is visible.
  const std::string base = env_.get("SLUICE_NGINX_HTTP_URL");
  Request request = Request::get("http://sluice:wrong@" + base.substr(7) + "/auth/small.txt");
  request.auth =
      Authentication::basic(env_.get("SLUICE_AUTH_USER"), env_.get("SLUICE_AUTH_PASSWORD"));
  EXPECT_EQ(status_of(request), 200);
  Request overridden = get("/auth/small.txt", request.auth);
  overridden.headers.add("Authorization", "Basic d3Jvbmc6d3Jvbmc=");  // wrong:wrong
  EXPECT_EQ(status_of(overridden), 401);
}

TEST_F(ClientAuth, WhatCannotBeSentIsRefusedBeforeSending) {
  auto colon = client_.fetch(get("/auth/small.txt", Authentication::basic("a:b", "c")));
  ASSERT_FALSE(colon.ok());
  EXPECT_EQ(colon.error().category(), ErrorCategory::usage);
  EXPECT_EQ(colon.error().message(),
            "Basic: the user name 'a:b' contains ':', which Basic cannot carry");
  auto split = client_.fetch(get("/bearer/small.txt", Authentication::bearer("x\r\nInjected: 1")));
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().category(), ErrorCategory::usage);
  auto control = client_.fetch(get("/auth/small.txt", Authentication::basic("a", "b\nc")));
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.error().category(), ErrorCategory::usage);
}

TEST(ClientAuthRedirect, AuthStaysWithItsOrigin) {
  std::optional<std::string> at_target;
  std::mutex mu;
  test::TestServer target([&](test::ServerConnection& conn) {
    auto request = conn.read_request();
    ASSERT_TRUE(request);
    {
      std::lock_guard lock(mu);
      at_target = std::string(request->headers.get("authorization").value_or("<none>"));
    }
    conn.write(test::http_response(200, "target"));
  });
  const std::string target_url = target.url("/landing");
  test::TestServer origin([&](test::ServerConnection& conn) {
    auto request = conn.read_request();
    ASSERT_TRUE(request);
    EXPECT_EQ(request->headers.get("authorization").value_or(""), "Bearer abc.def");
    conn.write("HTTP/1.1 302 Found\r\nLocation: " + target_url + "\r\nContent-Length: 0\r\n\r\n");
  });
  auto client = test::make_client();
  Request request = Request::get(origin.url("/start"));
  request.redirects.follow = true;
  request.auth = Authentication::bearer("abc.def");
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "target");
  std::lock_guard lock(mu);
  EXPECT_EQ(at_target, "<none>");
}

}  // namespace
}  // namespace sluice
