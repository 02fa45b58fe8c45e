// The memory rules seen through Client::stats(): the release rule for request
// bodies and the sweep of a paused receiver's empty scratch.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// Reads the whole request, then answers only once the test says so.
struct SlowAnswer {
  std::atomic<bool> body_received{false};
  std::atomic<bool> answer{false};
  TestServer server{[this](ServerConnection& conn) {
    if (!conn.read_request(10s)) return;
    body_received = true;
    for (int i = 0; i < 500 && !answer; ++i) std::this_thread::sleep_for(10ms);
    conn.write(test::http_response(200, "stored"));
  }};
};

std::size_t body_bytes_held_while_waiting(std::size_t release_threshold) {
  SlowAnswer slow;
  ClientOptions options;
  options.release_threshold = release_threshold;
  auto client = Client::create(options).value();
  Request request = Request::get(slow.server.url("/upload"));
  request.method = "PUT";
  request.body = BytesBody{std::string(1 << 20, 'u')};
  auto pending = client.send(request);
  while (!slow.body_received) std::this_thread::sleep_for(5ms);
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.in_flight, 1u);
  slow.answer = true;
  auto response = pending.wait();
  EXPECT_TRUE(response.ok());
  if (response.ok()) {
    EXPECT_EQ(*response->body.read_all(), "stored");
  }
  return stats.request_body_bytes_held;
}

TEST(ClientMemory, LargeRequestBodyIsFreedBeforeTheResponseArrives) {
  EXPECT_EQ(body_bytes_held_while_waiting(512 * 1024), 0u);
}

TEST(ClientMemory, WithTheReleaseRuleOffTheBodyStaysUntilTheEnd) {
  EXPECT_GE(body_bytes_held_while_waiting(SIZE_MAX), std::size_t{1} << 20);
}

TEST(ClientMemory, SweepFreesAPausedReceiversEmptyScratch) {
  const std::string body = test::pseudo_random_bytes(16u << 20, 11);
  TestServer server([&body](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body));
  });
  auto client = Client::create().value();
  auto response = client.fetch(Request::get(server.url("/held")));
  ASSERT_TRUE(response.ok());
  // Held unread: the receiver pauses at its mark; within one sweep period (4 s) its
  // empty scratch goes, while the staged bytes stay for the reader.
  std::this_thread::sleep_for(4500ms);
  const ClientStats held = client.stats();
  EXPECT_EQ(held.paused_receivers, 1u);
  EXPECT_GE(held.sweep_releases, 1u);
  EXPECT_GE(held.staged_bytes, 128u * 1024);
  auto all = response->body.read_all(32u << 20);
  ASSERT_TRUE(all.ok()) << all.error().message();
  EXPECT_EQ(test::sha256_hex(*all), test::sha256_hex(body));
}

}  // namespace
}  // namespace sluice
