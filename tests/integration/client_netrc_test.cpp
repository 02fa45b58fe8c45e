// ClientOptions::netrc against nginx's Basic location and scripted servers: the
// file's credentials are used, with curl's precedence over Request::auth and the
// URL's, and they stay with the request's origin across a redirect.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::fetch_all;

class ClientNetrc : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "sluice-netrc-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  Client client(NetrcMode mode) {
    ClientOptions options;
    options.netrc = mode;
    options.netrc_file = path_;
    auto made = Client::create(std::move(options));
    EXPECT_TRUE(made.ok()) << made.error().message();
    return std::move(*made);
  }
  int status_of(Client& client, Request request) {
    auto fetched = fetch_all(client, std::move(request));
    EXPECT_TRUE(fetched.ok()) << fetched.error().message();
    return fetched.ok() ? fetched->status : 0;
  }
  // The nginx URL of `path` with `userinfo@` in it.
  std::string nginx_url(const std::string& userinfo, const std::string& path) const {
    const std::string base = env_.get("SLUICE_NGINX_HTTP_URL");
    return "http://" + (userinfo.empty() ? "" : userinfo + "@") + base.substr(7) + path;
  }
  std::string right_entry() const {
    return "machine 127.0.0.1 login " + env_.get("SLUICE_AUTH_USER") + " password \"" +
           env_.get("SLUICE_AUTH_PASSWORD") + "\"\n";
  }
  test::TestEnv env_;
  std::string path_;
};

TEST_F(ClientNetrc, TheFilesCredentialsOpenBasic) {
  write("# test\nmachine other.example login x password y\n" + right_entry());
  Client netrc = client(NetrcMode::required);
  EXPECT_EQ(status_of(netrc, Request::get(nginx_url("", "/auth/small.txt"))), 200);
  write("default login nobody password nothing\n");  // read once, by Client::create
  EXPECT_EQ(status_of(netrc, Request::get(nginx_url("", "/auth/small.txt"))), 200);
}

TEST_F(ClientNetrc, RequestAuthWinsOverTheFile) {
  write(right_entry());
  Client netrc = client(NetrcMode::required);
  Request request = Request::get(nginx_url("", "/auth/small.txt"));
  request.auth = Authentication::basic(env_.get("SLUICE_AUTH_USER"), "wrong");
  EXPECT_EQ(status_of(netrc, request), 401);
}

TEST_F(ClientNetrc, OptionalPrefersTheUrlsPasswordRequiredIgnoresIt) {
  write(right_entry());
  const std::string wrong_in_url =
      nginx_url(env_.get("SLUICE_AUTH_USER") + ":wrong", "/auth/small.txt");
  Client optional = client(NetrcMode::optional);
  EXPECT_EQ(status_of(optional, Request::get(wrong_in_url)), 401);
  Client required = client(NetrcMode::required);
  EXPECT_EQ(status_of(required, Request::get(wrong_in_url)), 200);
}

TEST_F(ClientNetrc, TheUrlsUserNamePicksTheLogin) {
  write("machine 127.0.0.1 login someone password else\n" + right_entry());
  Client netrc = client(NetrcMode::optional);
  EXPECT_EQ(status_of(netrc, Request::get(nginx_url("", "/auth/small.txt"))), 401);
  EXPECT_EQ(
      status_of(netrc, Request::get(nginx_url(env_.get("SLUICE_AUTH_USER"), "/auth/small.txt"))),
      200);
}

TEST_F(ClientNetrc, DigestTakesTheFilesCredentials) {
  write("machine 127.0.0.1 login " + env_.get("SLUICE_DIGEST_USER") + " password " +
        env_.get("SLUICE_DIGEST_PASSWORD") + "\n");
  Client netrc = client(NetrcMode::required);
  Request request = Request::get(env_.get("SLUICE_LIGHTTPD_URL") + "/digest-sha256/small.txt");
  request.auth = Authentication::digest("", "");
  EXPECT_EQ(status_of(netrc, request), 200);
}

TEST_F(ClientNetrc, AMalformedFileFailsCreateNamingItsLine) {
  write("machine 127.0.0.1\n  login \"unclosed\n");
  ClientOptions options;
  options.netrc = NetrcMode::optional;
  options.netrc_file = path_;
  auto made = Client::create(std::move(options));
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message(),
            "netrc: " + path_ + ":2: a quoted token is not closed (a '\"' is missing)");
}

TEST_F(ClientNetrc, AMissingRequiredFileFailsCreate) {
  ClientOptions options;
  options.netrc = NetrcMode::required;
  options.netrc_file = path_;  // never written
  auto made = Client::create(std::move(options));
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message().find(path_), std::string::npos) << made.error().message();
}

TEST_F(ClientNetrc, TheCredentialsStayWithTheirOriginAcrossARedirect) {
  // Both servers are 127.0.0.1, the netrc entry's host: only the origin (the port)
  // tells them apart, and the credentials must not follow the redirect.
  std::optional<std::string> at_target;
  std::optional<std::string> at_origin;
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
    {
      std::lock_guard lock(mu);
      at_origin = std::string(request->headers.get("authorization").value_or("<none>"));
    }
    conn.write("HTTP/1.1 302 Found\r\nLocation: " + target_url + "\r\nContent-Length: 0\r\n\r\n");
  });
  write("machine 127.0.0.1 login alice password secret\n");
  Client netrc = client(NetrcMode::required);
  Request request = Request::get(origin.url("/start"));
  request.redirects.follow = true;
  auto fetched = fetch_all(netrc, request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->body, "target");
  std::lock_guard lock(mu);
  EXPECT_EQ(at_origin, "Basic YWxpY2U6c2VjcmV0");  // alice:secret
  EXPECT_EQ(at_target, "<none>");
}

}  // namespace
}  // namespace sluice
