// Dropping a response unread over every version (versions.hpp): under the mark the
// exchange completes and its connection is reused; over it the exchange is abandoned,
// not drained (h1 closes the connection; h2 and h2c reset the stream with CANCEL; h3
// cancels the stream), and the next request to the origin works.
#include <gtest/gtest.h>

#include <optional>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::Need;
using test::wait_until;
using test::Wire;

// The trace line that shows a multiplexed exchange was abandoned, not drained.
const char* abandon_trace(Wire wire) {
  return wire == Wire::h3 ? " h3: cancelled" : " h2: RST_STREAM sent (CANCEL)";
}

class VersionsDrop : public test::VersionsTest {
 protected:
  // Unread, a body's allowance stays at its initial 64 KiB, so a 1 MiB body can never
  // have arrived whole before its reader goes: each drop below happens mid-body.
  Client make_client() { return VersionsTest::make_client(ClientOptions{}); }
  void expect_next_request_works(Client& client) {
    auto next = client.fetch(request_for(Need::files, "/small.txt"));
    ASSERT_TRUE(next.ok()) << next.error().describe();
    EXPECT_EQ(next->version, test::spoken_by(wire()));
    expect_file(next->body, "small.txt");
  }
};

TEST_P(VersionsDrop, ResponseDroppedUnderTheMarkCompletesAndKeepsItsConnection) {
  auto client = make_client();
  {
    auto dropped = client.fetch(request_for(Need::files, "/small.txt"));  // 583 bytes
    ASSERT_TRUE(dropped.ok()) << dropped.error().describe();
  }  // the reader goes away unread
  ASSERT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the dropped exchange never ended";
  EXPECT_EQ(client.stats().staged_bytes, 0u);
  EXPECT_EQ(client.stats().connections, 1u) << "the connection should be kept for reuse";

  expect_next_request_works(client);
  EXPECT_EQ(client.stats().connections, 1u) << "the next request should reuse the connection";
  if (test::multiplexes(wire())) {
    EXPECT_FALSE(trace_.any_contains(abandon_trace(wire()))) << "a completed stream was cancelled";
  }
}

TEST_P(VersionsDrop, ResponseDroppedOverItsAllowanceIsAbandonedAndTheOriginStaysUsable) {
  auto client = make_client();
  {
    auto dropped = client.fetch(request_for(Need::files, "/1m.bin"));
    ASSERT_TRUE(dropped.ok()) << dropped.error().describe();
    ASSERT_TRUE(wait_until(client, [&] { return client.stats().paused_receivers == 1; }))
        << "the body never reached its allowance";
  }  // the reader goes away with its allowance staged and far more to come
  ASSERT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the dropped exchange never ended";
  EXPECT_EQ(client.stats().staged_bytes, 0u) << "what was staged should be freed";

  if (test::multiplexes(wire())) {
    // The stream is cancelled; its connection stays up for the next request.
    EXPECT_TRUE(wait_until(client, [&] { return trace_.any_contains(abandon_trace(wire())); }))
        << "the stream was not cancelled";
    EXPECT_EQ(client.stats().connections, 1u);
  } else {
    // HTTP/1.1 cannot abandon a response midway and keep the connection.
    EXPECT_TRUE(wait_until(client, [&] { return client.stats().connections == 0; }))
        << "the abandoned connection stayed open (drained?)";
  }
  expect_next_request_works(client);
  EXPECT_EQ(client.stats().connections, 1u);
}

// Dropping the reader part way through the body: what is left (700 KiB) is over the
// allowance (at most 256 KiB here, however far the reader's 300 KiB grew it), so the
// exchange is abandoned rather than read to the end for nobody.
TEST_P(VersionsDrop, ReaderDroppedMidBodyEndsTheExchange) {
  auto client = make_client();
  std::optional<Response> response;
  {
    Request request = request_for(Need::files, "/1m.bin");
    request.allowance.max_bytes = 256 * 1024;
    auto fetched = client.fetch(request);
    ASSERT_TRUE(fetched.ok()) << fetched.error().describe();
    response.emplace(std::move(*fetched));
  }
  const test::ReadOutcome first = test::read_until_end(response->body, 300 * 1024);
  ASSERT_FALSE(first.error.has_value()) << first.error->describe();
  ASSERT_EQ(first.bytes, 300u * 1024);
  response.reset();

  ASSERT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the exchange went on without its reader";
  EXPECT_EQ(client.stats().staged_bytes, 0u);
  if (test::multiplexes(wire())) {
    EXPECT_TRUE(wait_until(client, [&] { return trace_.any_contains(abandon_trace(wire())); }))
        << "the stream was not cancelled";
  }
  expect_next_request_works(client);
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsDrop, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
