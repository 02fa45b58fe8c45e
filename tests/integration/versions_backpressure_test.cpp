// Backpressure over every version (versions.hpp): a reader that takes nothing holds
// its body at its initial allowance (h1: reads off at the socket, and no receive past
// it; h2, h2c, h3: the stream's window stays closed); a prompt reader's allowance grows
// and falls back after a long pause, and where the version multiplexes, a held stream leaves its sibling
// on the same connection free to finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::kPastTheAllowance;
using test::Need;
using test::read_until_end;
using test::ReadOutcome;
using test::wait_until;

class VersionsBackpressure : public test::VersionsTest {
 protected:
  // Waits until the Client shows one paused receiver: a reader at its allowance.
  static bool wait_paused(Client& client, std::size_t receivers = 1) {
    return wait_until(client, [&] { return client.stats().paused_receivers == receivers; });
  }
};

// The hold is the HTTP thread's time: its clock freezes once the body is paused and
// moves as the test says, so whatever that thread does over time (the sweep, idle
// checks, credit for a stream gone quiet) runs while the reader holds.
TEST_P(VersionsBackpressure, HeldBodyStaysAtItsAllowanceAndThenArrivesWhole) {
  test::FreezableClock clock;
  auto client = make_client_on(clock);
  Request request = request_for(Need::files, "/1m.bin");  // sixteen allowances of 64 KiB
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->version, test::spoken_by(wire()));

  ASSERT_TRUE(wait_paused(client))
      << "the held body never reached its allowance; staged " << client.stats().staged_bytes;
  clock.freeze();
  const ClientStats held = client.stats();
  EXPECT_GE(held.staged_bytes, request.allowance.initial_bytes);
  EXPECT_LE(held.staged_bytes, request.allowance.initial_bytes + kPastTheAllowance);
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
  EXPECT_LE(later.staged_bytes, request.allowance.initial_bytes + kPastTheAllowance)
      << "the held body grew past its allowance";
  EXPECT_LE(response->body.buffered(), request.allowance.initial_bytes + kPastTheAllowance);

  // ...and once read, every byte is there.
  ASSERT_TRUE(test::thaw(clock, client));
  expect_file(response->body, "1m.bin");
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));
  EXPECT_EQ(client.stats().staged_bytes, 0u);
}

// Reads `bytes` of `body` (fewer at its end) into `hash`; false on an error.
bool read_into(BodyReader& body, test::Sha256& hash, std::uint64_t bytes, std::uint64_t& total) {
  std::vector<std::byte> piece(64 * 1024);
  for (std::uint64_t done = 0; done < bytes;) {
    auto got = body.read(std::span(piece).first(
        static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), bytes - done))));
    if (!got.ok()) {
      ADD_FAILURE() << got.error().describe();
      return false;
    }
    if (*got == 0) break;
    hash.update(std::span<const std::byte>(piece).first(*got));
    done += *got;
    total += *got;
  }
  return true;
}

// The allowance follows the reader, over every version. The HTTP thread's clock is
// frozen while the reader reads, so every take is prompt by that thread's time and no
// scheduling decides the outcome: a reader that keeps up grows its allowance; when it
// stops, the response holds at most the allowance it had; back after two seconds of
// the HTTP thread's time (a pause of kForgetAfter or more), it starts again at the
// initial allowance, and the body still arrives whole.
TEST_P(VersionsBackpressure, TheAllowanceGrowsWithAPromptReaderAndFallsBackAfterALongPause) {
  test::FreezableClock clock;
  auto client = make_client_on(clock);
  Request request = request_for(Need::files, "/64m.bin");
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  clock.freeze();
  test::Sha256 hash;
  std::uint64_t total = 0;
  ASSERT_TRUE(read_into(response->body, hash, 8u << 20, total));
  const ClientStats grown = client.stats();
  EXPECT_GE(grown.allowance_bytes, 4 * request.allowance.initial_bytes)
      << "a reader that kept up did not grow its allowance";
  EXPECT_LE(grown.allowance_bytes, request.allowance.max_bytes);

  // The reader stops: what the response holds is bounded by the allowance it had.
  // The clock runs again meanwhile: h2/h3 give back, as a stream gone quiet, the
  // credit the reader's last takes earned (QUIC also paces that credit by the clock),
  // so the server fills the window; with nothing taken the allowance cannot grow.
  ASSERT_TRUE(test::thaw(clock, client));
  if (!wait_paused(client)) {
    // The trace's last lines say which side stopped short of the window.
    const std::vector<std::string> lines = trace_.lines();
    std::string tail;
    for (std::size_t i = lines.size() > 40 ? lines.size() - 40 : 0; i < lines.size(); ++i) {
      tail += lines[i] + "\n";
    }
    FAIL() << "the stopped reader's response never paused; staged " << client.stats().staged_bytes
           << ", allowances " << client.stats().allowance_bytes << "\n"
           << tail;
  }
  const ClientStats held = client.stats();
  EXPECT_GT(held.staged_bytes, request.allowance.initial_bytes);
  EXPECT_LE(held.staged_bytes, held.allowance_bytes + kPastTheAllowance);
  EXPECT_EQ(held.allowance_bytes, grown.allowance_bytes) << "a held response does not grow";
  clock.freeze();

  // Two seconds of the HTTP thread's time later the reader drains what was held; its
  // resume finds the long pause and cuts the allowance back.
  ASSERT_TRUE(test::advance_in_steps(clock, client, 2s, 100ms)) << "the HTTP thread is stuck";
  ASSERT_TRUE(read_into(response->body, hash, held.staged_bytes, total));
  EXPECT_TRUE(wait_until(
      client, [&] { return client.stats().allowance_bytes == request.allowance.initial_bytes; }))
      << "the allowance stayed at " << client.stats().allowance_bytes;
  // h2/h3: "window back to 64 KiB after a long pause"; h1: "allowance 8 MiB -> 64 KiB".
  const std::string cut = test::multiplexes(wire()) ? "window back to 64 KiB" : "-> 64 KiB";
  EXPECT_TRUE(trace_.any_contains(cut)) << "the trace does not show the cut: " << cut;

  ASSERT_TRUE(test::thaw(clock, client));
  ASSERT_TRUE(read_into(response->body, hash, UINT64_MAX, total));
  EXPECT_EQ(total, 64u << 20);
  EXPECT_EQ(hash.hex_digest(), env_.sha256_of("64m.bin"));
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
  ASSERT_TRUE(wait_paused(client)) << "the held stream never reached its allowance";

  auto sibling = client.fetch(request);
  ASSERT_TRUE(sibling.ok()) << sibling.error().describe();
  EXPECT_EQ(sibling->version, test::spoken_by(wire()));
  expect_file(sibling->body, "1m.bin");

  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.connections, 1u) << "both streams should share one connection";
  EXPECT_EQ(stats.paused_receivers, 1u) << "the held stream should still be held";
  EXPECT_EQ(held->body.bytes_read(), 0u);
  EXPECT_LE(held->body.buffered(), request.allowance.initial_bytes + kPastTheAllowance);

  expect_file(held->body, "1m.bin");
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsBackpressure, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);
INSTANTIATE_TEST_SUITE_P(Versions, VersionsMultiplexedBackpressure,
                         ::testing::ValuesIn(test::multiplexed_wires()), test::wire_test_name);

}  // namespace
}  // namespace sluice
