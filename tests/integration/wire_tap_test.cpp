// ClientOptions::wire_tap against the real nginx: the cleartext of each connection,
// decrypted when TLS carries it, in order and whole.
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

struct Tapped {
  std::mutex mu;
  std::string sent, received;
  bool all_tls = true;
  bool any = false;
};

Client client_tapping(Tapped& tapped, const test::TestEnv& env) {
  ClientOptions options;
  options.tls.ca_file = env.get("SLUICE_TEST_CA");
  options.wire_tap = [&tapped](const WireChunk& chunk) {
    std::lock_guard lock(tapped.mu);
    std::string& into = chunk.direction == WireDirection::sent ? tapped.sent : tapped.received;
    into.append(reinterpret_cast<const char*>(chunk.bytes.data()), chunk.bytes.size());
    tapped.all_tls = tapped.all_tls && chunk.tls;
    tapped.any = true;
  };
  return test::make_client(std::move(options));
}

TEST(WireTap, ShowsAnHttpsRequestAndResponseDecrypted) {
  test::TestEnv env;
  Tapped tapped;
  {
    Client client = client_tapping(tapped, env);
    Request request = Request::get(env.get("SLUICE_NGINX_HTTPS_URL") + "/small.txt");
    request.version = VersionPolicy::http1_only;
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    auto body = response->body.read_all(1 << 20);
    ASSERT_TRUE(body.ok()) << body.error().describe();
    std::lock_guard lock(tapped.mu);
    EXPECT_EQ(tapped.sent.rfind("GET /small.txt HTTP/1.1\r\n", 0), 0u) << tapped.sent;
    EXPECT_EQ(tapped.received.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << tapped.received;
    ASSERT_GE(tapped.received.size(), body->size());
    EXPECT_EQ(tapped.received.substr(tapped.received.size() - body->size()), *body)
        << "the body is not the end of what was received";
    EXPECT_TRUE(tapped.all_tls);
  }
}

TEST(WireTap, ShowsTheHttp2PrefaceAndFramesInTheClear) {
  test::TestEnv env;
  Tapped tapped;
  Client client = client_tapping(tapped, env);
  Request request = Request::get(env.get("SLUICE_NGINX_H2_URL") + "/small.txt");
  request.version = VersionPolicy::http2;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  auto body = response->body.read_all(1 << 20);
  ASSERT_TRUE(body.ok()) << body.error().describe();
  std::lock_guard lock(tapped.mu);
  EXPECT_EQ(tapped.sent.rfind("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 0), 0u);
  EXPECT_NE(tapped.received.find(*body), std::string::npos)
      << "the DATA frame's payload is missing";
}

TEST(WireTap, TapsPlainHttpAndDoesNotCallItTls) {
  test::TestEnv env;
  Tapped tapped;
  Client client = client_tapping(tapped, env);
  auto response = client.fetch(Request::get(env.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_TRUE(response->body.read_all(1 << 20).ok());
  std::lock_guard lock(tapped.mu);
  EXPECT_TRUE(tapped.any);
  EXPECT_FALSE(tapped.all_tls) << "plain http reported as TLS";
}

}  // namespace
}  // namespace sluice
