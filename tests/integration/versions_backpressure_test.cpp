// Backpressure over every version (versions.hpp): a reader that takes nothing holds
// its body at the mark (h1: reads off at the socket; h2, h2c, h3: the stream's window
// stays closed), and where the version multiplexes, a held stream leaves its sibling
// on the same connection free to finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::kOneReceive;
using test::Need;
using test::ReadOutcome;
using test::read_until_end;
using test::wait_until;

class VersionsBackpressure : public test::VersionsTest {
 protected:
  // Waits until the Client shows one paused receiver: a reader at its mark.
  static bool wait_paused(Client& client, std::size_t receivers = 1) {
    return wait_until(client, [&] { return client.stats().paused_receivers == receivers; });
  }
};

// The hold is the HTTP thread's time: its clock freezes once the body is paused and
// moves as the test says, so whatever that thread does over time (the sweep, idle
// checks, credit for a stream gone quiet) runs while the reader holds.
TEST_P(VersionsBackpressure, HeldBodyStaysAtItsMarkAndThenArrivesWhole) {
  test::FreezableClock clock;
  auto client = make_client_on(clock);
  Request request = request_for(Need::files, "/1m.bin");  // four marks of 256 KiB
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->version, test::spoken_by(wire()));

  ASSERT_TRUE(wait_paused(client)) << "the held body never reached its mark; staged "
                                   << client.stats().staged_bytes;
  clock.freeze();
  const ClientStats held = client.stats();
  EXPECT_GE(held.staged_bytes, request.allowance.initial_bytes);
  EXPECT_LE(held.staged_bytes, request.allowance.initial_bytes + kOneReceive);
  EXPECT_EQ(held.in_flight, 1u);
  EXPECT_EQ(response->body.bytes_read(), 0u);

  // Held on for 5 s of the HTTP thread's time, past a sweep (every 4 s by default),
  // with each of its turns run: from the moment the client paused the stream, it lets
  // the server send nothing more (its trace would say so at once, wherever the bytes
  // that could then come are), and nothing more arrives...
  ASSERT_TRUE(test::advance_in_steps(clock, client, 5s, 100ms)) << "the HTTP thread is stuck";
  const std::vector<std::string> lines = trace_.lines();
  const auto paused = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("paused") != std::string::npos;
  });
  ASSERT_NE(paused, lines.end()) << "the client's trace does not show the pause";
  for (auto line = std::next(paused); line != lines.end(); ++line) {
    EXPECT_FALSE(test::lets_server_send(*line)) << "while held: " << *line;
  }
  const ClientStats later = client.stats();
  EXPECT_EQ(later.paused_receivers, 1u);
  EXPECT_LE(later.staged_bytes, request.allowance.initial_bytes + kOneReceive) << "the held body grew past its mark";
  EXPECT_LE(response->body.buffered(), request.allowance.initial_bytes + kOneReceive);

  // ...and once read, every byte is there.
  ASSERT_TRUE(test::thaw(clock, client));
  expect_file(response->body, "1m.bin");
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));
  EXPECT_EQ(client.stats().staged_bytes, 0u);
}

// Flow control is per stream: the held stream's closed window does not hold back the
// connection. (nginx, nghttpd and caddy each answer both on one connection.) Only the
// multiplexing versions: HTTP/1.1 runs one exchange per connection, so a second
// request while the first is held goes on a second connection and has no sibling.
class VersionsMultiplexedBackpressure : public VersionsBackpressure {};

TEST_P(VersionsMultiplexedBackpressure, HeldStreamLeavesItsSiblingOnTheSameConnectionFree) {
  auto client = make_client();
  Request request = request_for(Need::files, "/1m.bin");
  auto held = client.fetch(request);
  ASSERT_TRUE(held.ok()) << held.error().describe();
  ASSERT_TRUE(wait_paused(client)) << "the held stream never reached its mark";

  auto sibling = client.fetch(request);
  ASSERT_TRUE(sibling.ok()) << sibling.error().describe();
  EXPECT_EQ(sibling->version, test::spoken_by(wire()));
  expect_file(sibling->body, "1m.bin");

  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.connections, 1u) << "both streams should share one connection";
  EXPECT_EQ(stats.paused_receivers, 1u) << "the held stream should still be held";
  EXPECT_EQ(held->body.bytes_read(), 0u);
  EXPECT_LE(held->body.buffered(), request.allowance.initial_bytes + kOneReceive);

  expect_file(held->body, "1m.bin");
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsBackpressure, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);
INSTANTIATE_TEST_SUITE_P(Versions, VersionsMultiplexedBackpressure,
                         ::testing::ValuesIn(test::multiplexed_wires()), test::wire_test_name);

}  // namespace
}  // namespace sluice
