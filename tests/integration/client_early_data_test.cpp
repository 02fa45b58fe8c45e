// 0-RTT early data over HTTP/3 (ClientOptions::tls.early_data): against gtlsserver,
// which accepts early data in the tickets it issues, and against our own QUIC test
// server, whose tickets never allow it, so every early request is refused and must
// go again after the handshake. Each Client's pool closes an idle connection after
// 20 ms, so its next request opens a new connection that resumes the session; the
// tests wait for that event (no connection left), never for a time.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/quic_test_udp_server.hpp"
#include "support/test_certs.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

using test::fetch_all;

Request h3_only(const std::string& url, std::string method = "GET") {
  Request request = Request::get(url);
  request.method = std::move(method);
  request.version = VersionPolicy::http3_only;
  return request;
}

Client early_client(const std::string& ca_file, bool early_data = true) {
  ClientOptions options;
  options.tls.ca_file = ca_file;
  options.tls.early_data = early_data;
  options.pool.idle_timeout = 20ms;
  return test::make_client(std::move(options));
}

// The pool closed the idle connection: the next request needs a new one.
void wait_for_no_connection(Client& client) {
  ASSERT_TRUE(test::eventually([&] { return client.stats().connections == 0; }))
      << "the pool kept its idle connection past its 20 ms idle timeout";
}

class ClientEarlyData : public ::testing::Test {
 protected:
  std::string url(const std::string& path) const {
    // One server instance: a ticket resumes only where it was issued.
    return env_.get("SLUICE_GTLSSERVER_V4_URL") + path;
  }
  test::TestEnv env_;
};

// Whether to take early data is the server's choice. In CI's TSan suite (2 runs of
// 2, never alone, under GCC or ASan, nor in 45 loaded runs here) gtlsserver resumed
// both of a try's connections and refused 0-RTT on both, with its ticket fresh. The
// cause is not established; GnuTLS's anti-replay window (10 s by default, restarted
// as it goes) refusing tickets issued before a restart is the first suspect. The
// refusal path has its own tests below; here a refused try is made again with a
// fresh Client and ticket, a few times at most, and every try must still have gone
// early and got the right answer.
TEST_F(ClientEarlyData, ResumedConnectionSendsASafeRequestEarlyAndTheServerTakesIt) {
  constexpr int kTries = 5;
  std::string refused_tries;
  for (int attempt = 1; attempt <= kTries; ++attempt) {
    Client client = early_client(env_.get("SLUICE_TEST_CA"));
    auto first = fetch_all(client, h3_only(url("/small.txt")));
    ASSERT_TRUE(first.ok()) << first.error().message();
    ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));
    // The first connection had no ticket: nothing went early.
    EXPECT_EQ(client.stats().quic_early_requests, 0u);

    auto second = fetch_all(client, h3_only(url("/small.txt")));
    ASSERT_TRUE(second.ok()) << second.error().message();
    EXPECT_EQ(second->status, 200);
    EXPECT_EQ(second->version, HttpVersion::http3);
    EXPECT_EQ(second->body, first->body);
    const ClientStats stats = client.stats();
    EXPECT_GE(stats.quic_resumed_handshakes, 1u);
    EXPECT_GE(stats.quic_early_requests, 1u);
    EXPECT_EQ(stats.quic_early_data_accepted + stats.quic_early_data_rejected,
              stats.quic_resumed_handshakes);
    if (stats.quic_early_data_accepted == 1 && stats.quic_early_data_rejected == 0) {
      EXPECT_EQ(stats.quic_resumed_handshakes, 1u);
      EXPECT_EQ(stats.quic_early_requests, 1u);
      return;
    }
    refused_tries += " try " + std::to_string(attempt) + ": " +
                     std::to_string(stats.quic_resumed_handshakes) + " resumed, " +
                     std::to_string(stats.quic_early_data_rejected) + " refused;";
  }
  ADD_FAILURE() << "the server never took the early request in " << kTries
                << " tries:" << refused_tries;
}

TEST_F(ClientEarlyData, RequestThatIsNotSafeToReplayWaitsForTheHandshake) {
  Client client = early_client(env_.get("SLUICE_TEST_CA"));
  ASSERT_TRUE(fetch_all(client, h3_only(url("/small.txt"))).ok());
  ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));
  // DELETE is idempotent but not safe: a replayed one would act twice.
  auto deleted = fetch_all(client, h3_only(url("/small.txt"), "DELETE"));
  ASSERT_TRUE(deleted.ok()) << deleted.error().message();
  EXPECT_EQ(deleted->version, HttpVersion::http3);
  const ClientStats stats = client.stats();
  // At least one: CI's loaded GCC suite once saw two resumed handshakes for the one
  // DELETE (the cause is not established; nothing here repeats it). However many
  // connections it took, none of them carried the DELETE early.
  EXPECT_GE(stats.quic_resumed_handshakes, 1u);
  EXPECT_EQ(stats.quic_early_requests, 0u);
}

TEST_F(ClientEarlyData, WithoutTheOptionNothingGoesEarly) {
  Client client = early_client(env_.get("SLUICE_TEST_CA"), /*early_data=*/false);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(fetch_all(client, h3_only(url("/small.txt"))).ok());
    ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));
  }
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.quic_resumed_handshakes, 1u);
  EXPECT_EQ(stats.quic_early_requests, 0u);
  EXPECT_EQ(stats.quic_early_data_accepted + stats.quic_early_data_rejected, 0u);
}

TEST(ClientEarlyDataRefused, RefusedEarlyRequestsGoAgainAfterTheHandshake) {
  test::QuicTestServerOptions options;
  options.cert_file = test::test_certs().server_cert;
  options.key_file = test::test_certs().server_key;
  options.session_tickets = true;
  options.handler = [](const test::QuicTestRequest& request) {
    return test::QuicTestResponse::text("answer to " + request.path());
  };
  test::QuicTestUdpServer server(std::move(options));
  Client client = early_client(test::test_certs().ca_file);
  auto first = fetch_all(client, h3_only(server.url("/one")));
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));

  // Three requests wait for the second connection; all go early and are refused.
  std::vector<PendingResponse> pending;
  for (const char* path : {"/a", "/b", "/c"})
    pending.push_back(client.send(h3_only(server.url(path))));
  for (std::size_t i = 0; i < pending.size(); ++i) {
    auto response = pending[i].wait();
    ASSERT_TRUE(response.ok()) << response.error().message();
    auto body = response->body.read_all(1 << 20);
    ASSERT_TRUE(body.ok()) << body.error().message();
    EXPECT_EQ(*body, std::string("answer to /") + static_cast<char>('a' + i));
  }
  EXPECT_TRUE(server.stats().resumed);
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.quic_resumed_handshakes, 1u);
  EXPECT_EQ(stats.quic_early_data_rejected, 1u);
  EXPECT_EQ(stats.quic_early_data_accepted, 0u);
  EXPECT_GE(stats.quic_early_requests, 1u);
  // Each request reached the server's handler once: the early copies never counted.
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].path(), "/one");
}

// The refused early copy does not use up the resends kept for the server's own
// refusals: after it, the server rejects the request twice (H3_REQUEST_REJECTED,
// which says it was not processed) and the third send is answered.
TEST(ClientEarlyDataRefused, RefusedEarlyDataLeavesTheResendsForTheServersRefusals) {
  constexpr std::uint64_t kH3RequestRejected = 0x10b;  // RFC 9114 section 8.1
  test::QuicTestServerOptions options;
  options.cert_file = test::test_certs().server_cert;
  options.key_file = test::test_certs().server_key;
  options.session_tickets = true;
  auto rejected = std::make_shared<std::atomic<int>>(0);
  options.handler = [rejected](const test::QuicTestRequest& request) {
    if (request.path() == "/x" && rejected->fetch_add(1) < 2)
      return test::QuicTestResponse::reset_before_headers(kH3RequestRejected);
    return test::QuicTestResponse::text("answer to " + request.path());
  };
  test::QuicTestUdpServer server(std::move(options));
  Client client = early_client(test::test_certs().ca_file);
  auto first = fetch_all(client, h3_only(server.url("/one")));
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_NO_FATAL_FAILURE(wait_for_no_connection(client));

  auto response = fetch_all(client, h3_only(server.url("/x")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->body, "answer to /x");
  EXPECT_EQ(client.stats().quic_early_data_rejected, 1u);
  EXPECT_EQ(rejected->load(), 3) << "two refusals, then the answer";
}

}  // namespace
}  // namespace sluice
