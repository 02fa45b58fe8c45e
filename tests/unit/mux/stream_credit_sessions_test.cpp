// The window policy (mux/stream_credit.hpp) as both sessions apply it: one typed
// test over HTTP/2 (H2Session against the in-memory nghttp2 server) and HTTP/3
// (H3Session against the in-memory nghttp3 server and fake QUIC transport). Time is
// a manual clock; a pump moves bytes at once, and the test moves the clock between
// pumps to play round trips.
//
// The servers here send the way real ones may and the client must survive: only in
// whole units of 32,750 bytes, or nothing until half a window is open, or small units
// only while a large window is open (which needs the quiet rule). Each delivers
// 64 MiB to a prompt reader, a slow reader that never reaches its mark, and a reader
// that pauses and resumes, with the SHA-256 matching.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "support/session_sides.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using test::RecordingSink;
using test::SideSetup;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kMark = 256 * kKiB;
constexpr std::uint64_t kSeed = 12;

template <class Side>
class WindowPolicySessions : public ::testing::Test {
 protected:
  // How a reader takes bytes between pumps.
  enum class Reader { prompt, slow, pausing };

  // Downloads with `reader`, moving the clock 1 ms per round and firing the
  // session's timer as a connection would. Returns whether it completed.
  bool download(Side& side, RecordingSink& sink, std::int64_t id, Reader reader) {
    for (int round = 0; round < 200000 && !sink.completed && !sink.error; ++round) {
      side.pump();
      if (side.failed()) return false;
      if (take(sink, reader, round)) side.resume(id);
      side.advance(milliseconds(1));
      side.fire_timer();
    }
    return sink.completed;
  }

  static bool take(RecordingSink& sink, Reader reader, int round) {
    switch (reader) {
      case Reader::prompt: return sink.take(SIZE_MAX);
      case Reader::slow:  // a few KiB at a time: it stays well below its mark
        return sink.take(20 * kKiB);
      case Reader::pausing:  // stops for 5 rounds, then takes everything, and again
        return round % 6 == 5 ? sink.take(SIZE_MAX) : false;
    }
    return false;
  }

  void expect_complete_download(const SideSetup& setup, Reader reader) {
    Side side(setup);
    RecordingSink sink;
    sink.hold();
    const std::int64_t id = side.open(sink);
    side.pump();
    side.respond_generated(id, 64 * kMiB, kSeed);
    const bool done = download(side, sink, id, reader);
    ASSERT_TRUE(done) << "stalled after " << sink.body.size() << " bytes, holding "
                      << sink.held_bytes() << "; the server may send " << side.server_room(id);
    EXPECT_EQ(sink.body.size(), 64 * kMiB);
    test::Sha256 hash;
    hash.update(sink.body);
    EXPECT_EQ(hash.hex_digest(), test::generated_sha256(64 * kMiB, kSeed));
    EXPECT_FALSE(side.failed());
  }
};

using Versions = ::testing::Types<test::H2Side, test::H3Side>;
TYPED_TEST_SUITE(WindowPolicySessions, Versions, test::SideName);

// --- Credit follows what the reader takes --------------------------------------

// 8 units of 32,750 bytes fill 262,000 of a 262,144-byte window: the server then
// waits with 144 bytes left, and only the reader's report can free it.
TYPED_TEST(WindowPolicySessions, WholeUnitServerReachesAPromptReader) {
  this->expect_complete_download({.data_unit = 32750}, TestFixture::Reader::prompt);
}

TYPED_TEST(WindowPolicySessions, WholeUnitServerReachesASlowReaderBelowItsMark) {
  this->expect_complete_download({.data_unit = 32750}, TestFixture::Reader::slow);
}

TYPED_TEST(WindowPolicySessions, WholeUnitServerReachesAReaderThatPausesAndResumes) {
  this->expect_complete_download({.data_unit = 32750}, TestFixture::Reader::pausing);
}

TYPED_TEST(WindowPolicySessions, MinimumWindowServerReachesAPromptReader) {
  this->expect_complete_download({.min_send_window = kMark / 2}, TestFixture::Reader::prompt);
}

TYPED_TEST(WindowPolicySessions, MinimumWindowServerReachesASlowReaderBelowItsMark) {
  this->expect_complete_download({.min_send_window = kMark / 2}, TestFixture::Reader::slow);
}

TYPED_TEST(WindowPolicySessions, MinimumWindowServerReachesAReaderThatPausesAndResumes) {
  this->expect_complete_download({.min_send_window = kMark / 2}, TestFixture::Reader::pausing);
}

// Small units while at least three quarters of the window is open: it stops with
// only a quarter of the window received, under the half-window threshold, and the
// reader has taken all of it. Only the quiet rule gives that back.
TYPED_TEST(WindowPolicySessions, QuietRuleFreesAServerWaitingForMoreThanHalfTheWindow) {
  this->expect_complete_download({.data_unit = 16 * 1024, .min_send_window = 3 * kMark / 4},
                                 TestFixture::Reader::prompt);
  TypeParam side({.data_unit = 16 * 1024, .min_send_window = 3 * kMark / 4});
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 4 * kMiB, kSeed);
  side.pump();
  EXPECT_FALSE(sink.take(SIZE_MAX)) << "a quarter window is not worth a report";
  side.pump();
  const std::size_t before = sink.body.size();
  EXPECT_LT(before, kMark / 2);
  side.advance(milliseconds(1));
  side.fire_timer();  // quiet: what was taken goes back
  side.pump();
  EXPECT_GT(sink.body.size(), before);
}

// --- The window adapts to the path ---------------------------------------------

// A reader that keeps up on a 50 ms path: the whole window came and went at once, so
// the window held the rate back. It grows in one step as far as max_window.
TYPED_TEST(WindowPolicySessions, AReaderThatKeepsUpGrowsItsWindowToTheMax) {
  TypeParam side({.max_window = 4 * kMiB});
  side.use_rtt(milliseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 32 * kMiB, kSeed);
  std::uint64_t most_per_round_trip = 0;
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    const std::size_t before = sink.body.size();
    side.pump();  // what the server may send arrives at once
    most_per_round_trip = std::max<std::uint64_t>(most_per_round_trip, sink.body.size() - before);
    if (sink.take(SIZE_MAX)) side.resume(id);  // and the reader takes it at once
    side.advance(milliseconds(50));
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(side.traced(side.tag(id) + "window 256 KiB -> 4 MiB (rtt 50.0 ms)"));
  // A round trip carries the whole grown window, never more.
  EXPECT_GE(most_per_round_trip, 4 * kMiB - 64 * kKiB);
  EXPECT_LE(most_per_round_trip, 4 * kMiB);
}

// The same reader taking every chunk the moment it arrives, as a reader on a real
// path does (packets come spread out): the server runs out of window with nothing
// held on our side, and the window must grow all the same.
TYPED_TEST(WindowPolicySessions, AReaderThatTakesEveryChunkAsItArrivesGrowsItsWindow) {
  TypeParam side({.max_window = 4 * kMiB});
  side.use_rtt(milliseconds(50));
  RecordingSink sink;  // holds nothing: every byte is taken on arrival
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 32 * kMiB, kSeed);
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    side.pump();
    side.advance(milliseconds(50));
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(side.traced(side.tag(id) + "window 256 KiB -> 4 MiB (rtt 50.0 ms)"));
}

// On loopback the allowance follows the reader's hand-off (2 ms) instead of the
// path: a reader that takes each window a millisecond after it landed doubles it per
// step; one that comes back only every 4 ms (slower than half a window per 3 ms)
// keeps it, and never gets more than it per round.
TYPED_TEST(WindowPolicySessions, OnLoopbackAReaderThatKeepsUpDoublesItsWindowPerStep) {
  TypeParam side({.max_window = 16 * kMiB});
  side.use_rtt(microseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 32 * kMiB, kSeed);
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    side.pump();
    side.advance(milliseconds(1));
    if (sink.take(SIZE_MAX)) side.resume(id);
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(side.traced(side.tag(id) + "window 256 KiB -> 512 KiB (rtt"));
  EXPECT_TRUE(side.traced(side.tag(id) + "window 8 MiB -> 16 MiB (rtt"));
  EXPECT_FALSE(side.traced(side.tag(id) + "window 256 KiB -> 1 MiB")) << "more than double";
}

TYPED_TEST(WindowPolicySessions, OnLoopbackAReaderSlowerThanAHandOffKeepsItsWindow) {
  TypeParam side({.max_window = 16 * kMiB});
  side.use_rtt(microseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 8 * kMiB, kSeed);
  std::uint64_t most_per_round = 0;
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    const std::size_t before = sink.body.size();
    side.pump();
    most_per_round = std::max<std::uint64_t>(most_per_round, sink.body.size() - before);
    side.advance(milliseconds(4));
    if (sink.take(SIZE_MAX)) side.resume(id);
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_FALSE(side.traced(side.tag(id) + "window 256 KiB ->"));
  EXPECT_LE(most_per_round, kMark);
}

TYPED_TEST(WindowPolicySessions, AReaderThatLeavesBytesWaitingNeverGrowsItsWindow) {
  TypeParam side({.max_window = 16 * kMiB});
  side.use_rtt(milliseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 8 * kMiB, kSeed);
  for (int round = 0; round < 10000 && !sink.completed; ++round) {
    side.pump();
    if (sink.take(64 * kKiB)) side.resume(id);  // a quarter window per round trip
    side.advance(milliseconds(50));
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_FALSE(side.traced(side.tag(id) + "window 256 KiB ->"));
}

// Read at full speed, then stop: what the server may still send is what the window
// was when the reader stopped, and never more arrives.
TYPED_TEST(WindowPolicySessions, AHeldStreamHoldsAtMostTheWindowItHadWhenItsReaderStopped) {
  TypeParam side({.max_window = 4 * kMiB});
  side.use_rtt(milliseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 64 * kMiB, kSeed);
  for (int round = 0; round < 100 && sink.body.size() < 16 * kMiB; ++round) {
    side.pump();
    if (sink.take(SIZE_MAX)) side.resume(id);
    side.advance(milliseconds(50));
  }
  ASSERT_TRUE(side.traced(side.tag(id) + "window 256 KiB -> 4 MiB"));
  for (int round = 0; round < 20; ++round) {  // the reader stopped
    side.pump();
    side.advance(milliseconds(50));
    side.fire_timer();
  }
  EXPECT_LE(sink.held_bytes(), 4 * kMiB);
  EXPECT_FALSE(sink.completed);
  EXPECT_EQ(side.server_room(id), 0u);
}

TYPED_TEST(WindowPolicySessions, TheClientsLedgerCapsGrowth) {
  WindowLedger ledger(1 * kMiB);
  TypeParam side({.max_window = 16 * kMiB, .ledger = &ledger});
  side.use_rtt(milliseconds(50));
  RecordingSink sink;
  sink.hold();
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond_generated(id, 8 * kMiB, kSeed);
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    side.pump();
    if (sink.take(SIZE_MAX)) side.resume(id);
    EXPECT_LE(ledger.granted(), 1 * kMiB);
    side.advance(milliseconds(50));
  }
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(side.traced(side.tag(id) + "window 256 KiB -> 1 MiB"));
}

}  // namespace
}  // namespace sluice
