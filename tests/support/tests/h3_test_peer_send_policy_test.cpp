// Self-tests of H3TestPeer's send policies (H3PeerOptions::data_unit and
// min_send_window): the fake transport must move a request stream's bytes to the
// client exactly as the policy says, counting HTTP/3 framing as QUIC flow control
// does, so that client tests built on it reproduce servers that wait for credit.
//
// The client is the sluice H3Session (H3ClientHarness) with a consumer that holds
// what it got, so only framing is credited back until the test says. Where a test
// needs an exact credit it sets the transport's view of the client's stream window
// itself (set_stream_window, never above the client's real window, the mark).

#include <gtest/gtest.h>

#include <string>

#include "http3/h3_session.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::RecordingSink;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kUnit = 32750;  // 8 units fit a 256 KiB window, 144 bytes spare

H3PeerOptions unit_policy() {
  H3PeerOptions options;
  options.data_unit = kUnit;
  return options;
}

H3PeerOptions min_window_policy(std::size_t min_window) {
  H3PeerOptions options;
  options.min_send_window = min_window;
  return options;
}

class H3TestPeerSendPolicyTest : public ::testing::Test, protected test::H3ClientHarness {
 protected:
  explicit H3TestPeerSendPolicyTest(H3PeerOptions options) : H3ClientHarness(options) {}

  // A request whose consumer holds every body byte.
  std::int64_t open_held(RecordingSink& sink, std::string target) {
    sink.hold();
    const std::int64_t stream_id = submit(get(std::move(target)), sink);
    pump();
    return stream_id;
  }

  // Raises the transport's view of the stream window a byte at a time from `from`
  // until something moves; returns the window at which it did (0: never, by `to`).
  std::uint64_t first_window_that_moves(std::int64_t stream_id, std::uint64_t from,
                                        std::uint64_t to) {
    for (std::uint64_t window = from; window <= to; ++window) {
      peer.set_stream_window(stream_id, window);
      pump();
      if (peer.delivered(stream_id) > 0) return window;
    }
    return 0;
  }
};

class H3TestPeerDataUnitTest : public H3TestPeerSendPolicyTest {
 protected:
  H3TestPeerDataUnitTest() : H3TestPeerSendPolicyTest(unit_policy()) {}
};

// The client's default stream window (the mark, 256 KiB = 262,144) holds 8 units of
// 32,750 stream bytes: exactly those move, and the server keeps 144 bytes of
// credit plus what the client credited back for framing. Then, as the consumer
// takes bytes, every pause falls on a unit boundary with less than a unit of
// credit, until the body is complete.
TEST_F(H3TestPeerDataUnitTest, MovesEightUnitsIntoTheDefaultWindowAndWaitsWith144Left) {
  RecordingSink held;
  const std::int64_t stream_id = open_held(held, "/units");
  EXPECT_EQ(peer.client_window(stream_id), 256 * kKiB);
  const std::uint64_t size = 1 * kMiB;
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, size, 21);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 8 * kUnit);
  EXPECT_EQ(peer.send_room(stream_id), peer.credited(stream_id) + 144);
  EXPECT_LT(peer.send_room(stream_id), kUnit);

  for (int round = 0; round < 1000 && !held.completed; ++round) {
    held.take(64 * kKiB);
    session.resume_stream(stream_id);
    pump();
    if (held.completed) break;
    EXPECT_EQ(peer.delivered(stream_id) % kUnit, 0u) << "round " << round;
    EXPECT_LT(peer.send_room(stream_id), kUnit) << "round " << round;
  }
  ASSERT_TRUE(held.completed) << "stalled at " << held.body.size();
  EXPECT_TRUE(held.body == test::generated_bytes(21, 0, size));
}

TEST_F(H3TestPeerDataUnitTest, AUnitMovesOnlyWhenTheCreditCoversAllOfIt) {
  RecordingSink held;
  const std::int64_t stream_id = open_held(held, "/unit");
  peer.set_stream_window(stream_id, kUnit - 1);
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, 1 * kMiB, 22);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 0u);
  peer.set_stream_window(stream_id, kUnit);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), kUnit);
  // What came back (the framing in the unit) is less than the next unit.
  EXPECT_EQ(peer.send_room(stream_id), peer.credited(stream_id));
}

// A whole response shorter than a unit is the stream's final unit: it moves at
// once when the credit covers all of it, FIN included, and not a byte earlier.
TEST_F(H3TestPeerDataUnitTest, TheShorterFinalUnitWaitsForCreditCoveringAllOfIt) {
  RecordingSink held;
  const std::int64_t stream_id = open_held(held, "/short");
  peer.set_stream_window(stream_id, 0);
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, 1000, 23);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 0u);
  const std::uint64_t window = first_window_that_moves(stream_id, 1000, 2000);
  EXPECT_GT(window, 1000u);  // the body and its framing
  EXPECT_EQ(peer.delivered(stream_id), window);
  EXPECT_TRUE(held.completed);
  EXPECT_TRUE(held.body == test::generated_bytes(23, 0, 1000));
}

// A consumer that takes everything at once: the units flow to the end.
TEST_F(H3TestPeerDataUnitTest, APromptConsumerReceivesTheWholeBody) {
  RecordingSink prompt;
  const std::int64_t stream_id = submit(get("/prompt"), prompt);
  pump();
  const std::uint64_t size = 4 * kMiB + 123;
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, size, 24);
  pump();
  ASSERT_TRUE(prompt.completed) << "stalled at " << prompt.body.size();
  EXPECT_TRUE(prompt.body == test::generated_bytes(24, 0, size));
}

class H3TestPeerMinSendWindowTest : public H3TestPeerSendPolicyTest {
 protected:
  static constexpr std::size_t kMinWindow = 20000;
  H3TestPeerMinSendWindowTest() : H3TestPeerSendPolicyTest(min_window_policy(kMinWindow)) {}
};

TEST_F(H3TestPeerMinSendWindowTest, MovesNothingBelowItThenTheCreditItSaw) {
  RecordingSink held;
  const std::int64_t stream_id = open_held(held, "/bursts");
  peer.set_stream_window(stream_id, kMinWindow - 1);
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, 1 * kMiB, 25);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 0u);
  peer.set_stream_window(stream_id, kMinWindow);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), kMinWindow);
  EXPECT_LT(peer.send_room(stream_id), kMinWindow);  // only the framing came back

  // The next burst is all the credit there was when it began: the window's new
  // bytes and the framing credited meanwhile.
  const std::uint64_t credited = peer.credited(stream_id);
  peer.set_stream_window(stream_id, 2 * kMinWindow);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 2 * kMinWindow + credited);
  EXPECT_LT(peer.send_room(stream_id), kMinWindow);
}

TEST_F(H3TestPeerMinSendWindowTest, TheLastBytesMoveOnceTheCreditCoversThem) {
  RecordingSink held;
  const std::int64_t stream_id = open_held(held, "/last");
  peer.set_stream_window(stream_id, 0);
  peer.respond(stream_id, 200);
  peer.send_body_generated(stream_id, 1000, 26);
  pump();
  EXPECT_EQ(peer.delivered(stream_id), 0u);
  const std::uint64_t window = first_window_that_moves(stream_id, 1000, 2000);
  EXPECT_GT(window, 1000u);
  EXPECT_LT(window, kMinWindow);
  EXPECT_EQ(peer.delivered(stream_id), window);
  EXPECT_TRUE(held.completed);
}

// Without a policy the generated body moves as the credit allows, like any other.
class H3TestPeerGeneratedBodyTest : public H3TestPeerSendPolicyTest {
 protected:
  H3TestPeerGeneratedBodyTest() : H3TestPeerSendPolicyTest(H3PeerOptions{}) {}
};

TEST_F(H3TestPeerGeneratedBodyTest, ArrivesWholeAfterGivenBytes) {
  RecordingSink prompt;
  const std::int64_t stream_id = submit(get("/generated"), prompt);
  pump();
  const std::uint64_t size = 3 * kMiB + 7;
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "first ", false);
  peer.send_body_generated(stream_id, size, 27);
  pump();
  ASSERT_TRUE(prompt.completed) << "stalled at " << prompt.body.size();
  EXPECT_TRUE(prompt.body == "first " + test::generated_bytes(27, 0, size));
}

}  // namespace
}  // namespace sluice
