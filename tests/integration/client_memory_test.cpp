// The memory rules seen through Client::stats(): the release rule for request
// bodies and the sweep of a paused receiver's empty scratch.
#include <gtest/gtest.h>

#include <future>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// Reads the whole request, then answers only once the test says so.
struct SlowAnswer {
  std::promise<void> body_received;
  std::promise<void> answer;
  TestServer server{[this](ServerConnection& conn) {
    if (!conn.read_request(10s)) return;
    body_received.set_value();
    // Answers anyway after the deadline, so a test that failed early still ends.
    (void)answer.get_future().wait_for(30s);
    conn.write(test::http_response(200, "stored"));
  }};
};

std::size_t body_bytes_held_while_waiting(std::size_t release_threshold) {
  SlowAnswer slow;
  ClientOptions options;
  options.memory.release_threshold = release_threshold;
  auto client = test::make_client(options);
  Request request = Request::get(slow.server.url("/upload"));
  request.method = "PUT";
  request.body = BytesBody{std::string(1 << 20, 'u')};
  auto pending = client.send(request);
  const bool received = slow.body_received.get_future().wait_for(30s) == std::future_status::ready;
  EXPECT_TRUE(received) << "the server never received the whole request body";
  // The last byte was taken from the source before it reached the server, so the
  // release (or the absence of one) has happened: this snapshot sees it.
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.in_flight, 1u);
  slow.answer.set_value();
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
  ClientOptions options;
  options.memory.sweep_interval = 500ms;  // a receiver qualifies after 500 ms paused
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get(server.url("/held")));
  ASSERT_TRUE(response.ok());
  // Held unread: the receiver pauses at its allowance (64 KiB); a sweep then frees its empty
  // scratch, while the staged bytes stay for the reader.
  ClientStats held;
  EXPECT_TRUE(test::eventually([&] {
    held = client.stats();
    return held.paused_receivers == 1 && held.sweep_releases >= 1;
  })) << "no sweep freed the paused receiver's scratch";
  EXPECT_EQ(held.paused_receivers, 1u);
  EXPECT_GE(held.sweep_releases, 1u);
  EXPECT_GE(held.staged_bytes, 32u * 1024);
  auto all = response->body.read_all(32u << 20);
  ASSERT_TRUE(all.ok()) << all.error().message();
  EXPECT_EQ(test::sha256_hex(*all), test::sha256_hex(body));
}

}  // namespace
}  // namespace sluice
