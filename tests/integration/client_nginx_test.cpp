// The client against a real server: nginx over HTTP/1.1, plain and TLS, started by
// the ctest fixture servers.start (tests/support/servers/start.sh).
#include <gtest/gtest.h>

#include <vector>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

using test::fetch_all;

class ClientNginx : public ::testing::TestWithParam<bool> {
 protected:
  bool https() const { return GetParam(); }
  std::string url(const std::string& path) const {
    return env_.get(https() ? "SLUICE_NGINX_HTTPS_URL" : "SLUICE_NGINX_HTTP_URL") + path;
  }
  Client make_client() const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    return test::make_client(options);
  }
  test::TestEnv env_;
};

TEST_P(ClientNginx, DownloadsMatchTheirDigest) {
  auto client = make_client();
  for (const char* name : {"empty.bin", "small.txt", "1m.bin", "64m.bin"}) {
    auto fetched = fetch_all(client, Request::get(url(std::string("/") + name)));
    ASSERT_TRUE(fetched.ok()) << name << ": " << fetched.error().message();
    EXPECT_EQ(fetched->status, 200) << name;
    EXPECT_EQ(test::sha256_hex(fetched->body), env_.sha256_of(name)) << name;
  }
}

TEST_P(ClientNginx, GzipFromNginxDecodesToTheOriginal) {
  auto client = make_client();
  Request request = Request::get(url("/large.txt"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->headers.get("content-encoding").value_or(""), "gzip");
  auto body = response->body.read_all(128u << 20);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of("large.txt"));
}

TEST_P(ClientNginx, ManyConcurrentRequestsShareAFewConnections) {
  auto client = make_client();
  std::vector<PendingResponse> pending;
  for (int i = 0; i < 40; ++i) pending.push_back(client.send(Request::get(url("/small.txt"))));
  for (auto& one : pending) {
    auto response = one.wait();
    ASSERT_TRUE(response.ok()) << response.error().message();
    auto body = response->body.read_all();
    ASSERT_TRUE(body.ok()) << body.error().message();
    EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of("small.txt"));
  }
}

TEST_P(ClientNginx, RedirectChainIsFollowed) {
  auto client = make_client();
  Request request = Request::get(url("/redirect-chain/3"));
  request.redirects.follow = true;
  auto fetched = fetch_all(client, request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->redirects, 3);
  EXPECT_EQ(test::sha256_hex(fetched->body), env_.sha256_of("small.txt"));
}

TEST_P(ClientNginx, UploadRoundTrips) {
  auto client = make_client();
  const std::string payload = test::pseudo_random_bytes(2u << 20, https() ? 21 : 22);
  const std::string name = https() ? "/upload/tls.bin" : "/upload/plain.bin";
  Request put = Request::get(url(name));
  put.method = "PUT";
  put.body = BytesBody{payload};
  auto stored = fetch_all(client, put);
  ASSERT_TRUE(stored.ok()) << stored.error().message();
  EXPECT_LT(stored->status, 300);
  auto fetched = fetch_all(client, Request::get(url(name)));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(test::sha256_hex(fetched->body), test::sha256_hex(payload));
}

TEST_P(ClientNginx, NotFoundIsAResponseNotAnError) {
  auto client = make_client();
  auto fetched = fetch_all(client, Request::get(url("/no-such-file")));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 404);
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, ClientNginx, ::testing::Values(false, true),
                         [](const auto& param_info) {
                           return param_info.param ? "https" : "http";
                         });

}  // namespace
}  // namespace sluice
