#include "mux/stream_credit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

namespace sluice {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kMark = 256 * kKiB;

// The policy alone, on a made-up timeline: every test names the times it uses.
class StreamCreditTest : public ::testing::Test {
 protected:
  StreamCreditTest() { policy.max_window = 16 * kMiB; }

  TimePoint at(milliseconds offset) const { return start + offset; }

  WindowPolicy policy;
  const TimePoint start = TimePoint(std::chrono::hours(1));
};

TEST_F(StreamCreditTest, StartsAtItsMark) {
  StreamCredit credit(kMark, policy);
  EXPECT_EQ(credit.window(), kMark);
  EXPECT_EQ(credit.received(), 0u);
  EXPECT_EQ(credit.credited(), 0u);
}

TEST_F(StreamCreditTest, ArrivalGivesBackWhatWasTakenOnceItReachesHalfTheWindow) {
  StreamCredit credit(kMark, policy);
  credit.on_received(100 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(0)), {}).bytes, 0u);
  // The reader should report once the taken bytes reach half the window.
  EXPECT_EQ(credit.report_after(0), 28 * kKiB);
  // Taken 4 ms after the first byte: slower than a hand-off, so the window stays.
  credit.on_received(40 * kKiB, at(milliseconds(4)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(4)), {}).bytes,
            140 * kKiB);
  EXPECT_EQ(credit.credited(), 140 * kKiB);
  EXPECT_EQ(credit.report_after(0), 128 * kKiB);
}

// Over 4 MiB the step is an eighth of the window: through a long path half of a
// large window in flight while its credit travels left the server waiting.
TEST_F(StreamCreditTest, AWindowOverFourMiBGivesBackInEighths) {
  StreamCredit credit(8 * kMiB, policy);
  EXPECT_EQ(credit.report_after(0), kMiB);
  credit.on_received(kMiB - 1, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(0)), {}).bytes, 0u);
  EXPECT_EQ(credit.report_after(0), 1u);
  credit.on_received(1, at(milliseconds(1)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(1)), {}).bytes, kMiB);
  // A window of 4 MiB still goes back in halves.
  StreamCredit smaller(4 * kMiB, policy);
  smaller.on_received(kMiB, at(milliseconds(0)));
  EXPECT_EQ(smaller.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(0)), {}).bytes, 0u);
  EXPECT_EQ(smaller.report_after(0), kMiB);
}

TEST_F(StreamCreditTest, AReaderReportGivesBackAnyAmountTaken) {
  StreamCredit credit(kMark, policy);
  credit.on_received(10 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(0)), {}).bytes,
            10 * kKiB);
}

TEST_F(StreamCreditTest, HeldBytesAreNeverGivenBack) {
  StreamCredit credit(kMark, policy);
  credit.on_received(200 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(150 * kKiB, true, CreditTrigger::reader, at(milliseconds(0)), {}).bytes,
            50 * kKiB);
  // A consumer holding more than was received (decoded bytes) owes nothing.
  EXPECT_EQ(credit.evaluate(400 * kKiB, true, CreditTrigger::reader, at(milliseconds(0)), {}).bytes,
            0u);
}

TEST_F(StreamCreditTest, ALimitOutsideTheStreamHoldsAllCreditBack) {
  StreamCredit credit(kMark, policy);
  credit.on_received(200 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, false, CreditTrigger::reader, at(milliseconds(0)), {}).bytes, 0u);
  EXPECT_EQ(credit.credited(), 0u);
}

TEST_F(StreamCreditTest, APausedStreamWantsNoReportAndIsNeverQuiet) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_TRUE(credit.pause_if_unwanted(false, at(milliseconds(1))));
  EXPECT_FALSE(credit.pause_if_unwanted(false, at(milliseconds(2))));  // already
  EXPECT_EQ(credit.paused_at(), at(milliseconds(1)));
  EXPECT_EQ(credit.report_after(kMark), 0u);
  EXPECT_FALSE(credit.quiet_deadline().has_value());
  EXPECT_FALSE(credit.resume_if_wanted(false, at(milliseconds(3))));
  EXPECT_TRUE(credit.resume_if_wanted(true, at(milliseconds(3))));
  EXPECT_FALSE(credit.paused());
}

// A server may stop with part of its window unused; once nothing arrives for
// quiet_after, what was taken goes back, and the reader reports when it has taken all
// it holds.
TEST_F(StreamCreditTest, AQuietStreamGivesBackAnyAmountAndAsksForADrainReport) {
  StreamCredit credit(kMark, policy);
  credit.on_received(64 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(40 * kKiB, true, CreditTrigger::arrival, at(milliseconds(0)), {}).bytes,
            0u);
  ASSERT_TRUE(credit.quiet_deadline().has_value());
  EXPECT_EQ(*credit.quiet_deadline(), at(milliseconds(1)));
  EXPECT_EQ(credit.evaluate(40 * kKiB, true, CreditTrigger::quiet, at(milliseconds(1)), {}).bytes,
            24 * kKiB);
  EXPECT_EQ(credit.report_after(40 * kKiB), 40 * kKiB);  // not half a window: all it holds
  EXPECT_FALSE(credit.quiet_deadline().has_value());     // until bytes arrive again
  credit.on_received(1 * kKiB, at(milliseconds(5)));
  EXPECT_EQ(*credit.quiet_deadline(), at(milliseconds(6)));
}

// The drain report outlives reports that leave bytes held: a server waiting for
// more window than the stream had (here 192 KiB of 256) gets it only once the reader
// took everything. A reader report that arrives first (at half a window taken, with
// 72 KiB still held) must not turn the drain report back into a half-window one: the
// reader would take the 72 KiB and stop short of it, nothing would arrive, and no
// quiet deadline would come again (found under load by
// ClientFlowControlMinimumWindow/Slow: it stalled one run in six).
TEST_F(StreamCreditTest, TheDrainReportStaysUntilTheReaderTookEverythingHeld) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(kMark, true, CreditTrigger::quiet, at(milliseconds(1)), {}).bytes, 0u);
  EXPECT_EQ(credit.report_after(kMark), 128 * kKiB);  // half a window, as ever
  EXPECT_EQ(credit.evaluate(72 * kKiB, true, CreditTrigger::reader, at(milliseconds(5)), {}).bytes,
            184 * kKiB);
  EXPECT_FALSE(credit.quiet_deadline().has_value());  // nothing arrived since
  EXPECT_EQ(credit.report_after(72 * kKiB), 72 * kKiB) << "the reader must report once drained";
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(6)), {}).bytes,
            72 * kKiB);
  EXPECT_EQ(credit.report_after(0), 128 * kKiB);  // drained: back to half a window
}

TEST_F(StreamCreditTest, NothingOwedMeansNoQuietDeadline) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(10)), {}).bytes,
            kMark);
  EXPECT_FALSE(credit.quiet_deadline().has_value());
}

// 256 KiB taken 10 ms after they started to arrive, on a 50 ms path: half the window
// (and more) came and went within a round trip, so the window, not the reader, set
// the rate. That rate (256 KiB per 10 ms) needs 1.25 MiB for two round trips.
TEST_F(StreamCreditTest, HalfAWindowTakenWithinARoundTripGrowsToWhatTheRateNeeds) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  const CreditGrant grant =
      credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(10)), milliseconds(50));
  EXPECT_EQ(grant.grown_from, kMark);
  EXPECT_EQ(grant.grown_to, 1280 * kKiB);
  EXPECT_EQ(credit.window(), 1280 * kKiB);
  EXPECT_EQ(grant.bytes, kMark + (1280 * kKiB - kMark));  // what was taken, plus the growth
}

TEST_F(StreamCreditTest, GrowthIsAtLeastDoubleAndAtMostTheMaxWindow) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  // Exactly a round trip: the rate seen needs no more, but the window limited it.
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(50)), milliseconds(50))
                .grown_to,
            2 * kMark);
  // All at once: the step is capped (64 times), then by max_window.
  policy.max_window = 4 * kMiB;
  credit.on_received(2 * kMark, at(milliseconds(100)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(100)), milliseconds(50))
                .grown_to,
            4 * kMiB);
  credit.on_received(4 * kMiB, at(milliseconds(150)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(150)), milliseconds(50))
                .grown_to,
            0u);
  EXPECT_EQ(credit.window(), 4 * kMiB);
}

// On loopback the path's round trip says nothing; the reader's hand-off is the
// latency: a reader that takes each window as it lands doubles it per step (never
// more), up to the max.
TEST_F(StreamCreditTest, OnAShortPathAReaderThatKeepsUpDoublesItsWindowPerStep) {
  StreamCredit credit(kMark, policy);
  std::uint64_t expected = kMark;
  for (int step = 0; step < 8; ++step) {
    const std::uint64_t window = credit.window();
    credit.on_received(window, at(milliseconds(step)));
    const CreditGrant grant =
        credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(step)), microseconds(60));
    expected = std::min(2 * expected, 16 * kMiB);
    EXPECT_EQ(credit.window(), expected) << "step " << step;
    EXPECT_EQ(grant.grown_to, window == 16 * kMiB ? 0u : expected);
  }
  EXPECT_EQ(credit.window(), 16 * kMiB);
}

// Half a window within 3 ms (1.5 hand-offs) grows it; within 4 ms it does not: the
// reader, not the window, sets that rate.
TEST_F(StreamCreditTest, OnAShortPathOnlyAReaderFasterThanAHandOffGrowsItsWindow) {
  StreamCredit prompt(kMark, policy);
  prompt.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(prompt.evaluate(0, true, CreditTrigger::reader, at(milliseconds(3)), microseconds(1900))
                .grown_to,
            2 * kMark);
  StreamCredit slow(kMark, policy);
  slow.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(slow.evaluate(0, true, CreditTrigger::reader, at(milliseconds(4)), {}).grown_to, 0u);
  EXPECT_EQ(slow.window(), kMark);
}

// A reader that took one chunk at once and stopped has earned one step, not the
// maximum: it holds at most twice its initial allowance.
TEST_F(StreamCreditTest, OneQuickTakeEarnsOneStep) {
  StreamCredit credit(64 * kKiB, 32 * kMiB, policy);
  credit.on_received(64 * kKiB, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(0)), {}).grown_to,
            128 * kKiB);
  credit.pause_if_unwanted(false, at(milliseconds(1)));
  EXPECT_EQ(credit.window(), 128 * kKiB);
}

TEST_F(StreamCreditTest, TheStreamsOwnMaximumCapsItsGrowth) {
  StreamCredit credit(kMark, 300 * kKiB, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(0)), {}).grown_to,
            300 * kKiB);
  EXPECT_EQ(credit.max(), 300 * kKiB);
}

// A pause of a second or more: the reader stopped. Its window goes back to the
// initial one; what it had granted beyond that is withheld from the credit its next
// takes would return, and leaves the ledger as it is paid (until then the server
// may still send it).
TEST_F(StreamCreditTest, AReaderBackFromALongPauseStartsAgainAtTheInitialWindow) {
  WindowLedger ledger;
  policy.ledger = &ledger;
  StreamCredit credit(64 * kKiB, 32 * kMiB, policy);
  for (int step = 0; step < 3; ++step) {  // 64 -> 128 -> 256 -> 512 KiB
    credit.on_received(credit.window(), at(milliseconds(step)));
    credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(step)), {});
  }
  ASSERT_EQ(credit.window(), 512 * kKiB);
  ASSERT_EQ(ledger.granted(), 512 * kKiB);
  credit.on_received(512 * kKiB, at(milliseconds(10)));  // the server filled it
  ASSERT_TRUE(credit.pause_if_unwanted(false, at(milliseconds(10))));
  ASSERT_TRUE(credit.resume_if_wanted(true, at(milliseconds(1010))));
  EXPECT_EQ(credit.window(), 64 * kKiB);
  EXPECT_EQ(ledger.granted(), 512 * kKiB) << "the cut is not paid yet";
  // The reader drained half of what it held: that credit pays for half the cut.
  CreditGrant grant =
      credit.evaluate(256 * kKiB, true, CreditTrigger::reader, at(milliseconds(1011)), {});
  EXPECT_EQ(grant.shrunk_to, 64 * kKiB);
  EXPECT_EQ(grant.bytes, 0u);
  EXPECT_EQ(ledger.granted(), 256 * kKiB);
  // Once it drained all, the peer may send the initial window beyond what was taken.
  grant = credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(1020)), {});
  EXPECT_EQ(grant.shrunk_to, 0u);
  EXPECT_EQ(grant.bytes, 64 * kKiB);
  EXPECT_EQ(credit.credited() + credit.window() - credit.received(), 64 * kKiB)
      << "the peer's room beyond what was taken is the initial window";
  EXPECT_EQ(ledger.granted(), 64 * kKiB) << "the cut is paid";
}

// What a reader back from a long pause drains was waiting for it: taken at once, it
// is no sign of keeping up, and the window stays cut.
TEST_F(StreamCreditTest, DrainingWhatWaitedAfterAPauseDoesNotGrowTheWindow) {
  StreamCredit credit(64 * kKiB, 32 * kMiB, policy);
  for (int step = 0; step < 3; ++step) {
    credit.on_received(credit.window(), at(milliseconds(step)));
    credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(step)), {});
  }
  credit.on_received(512 * kKiB, at(milliseconds(10)));
  credit.pause_if_unwanted(false, at(milliseconds(10)));
  credit.resume_if_wanted(true, at(milliseconds(2000)));
  EXPECT_EQ(credit.evaluate(200 * kKiB, true, CreditTrigger::reader, at(milliseconds(2000)), {})
                .shrunk_to,
            64 * kKiB);
  credit.on_received(10 * kKiB, at(milliseconds(2000)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(2000)), {}).grown_to,
            0u);
  EXPECT_EQ(credit.window(), 64 * kKiB);
}

TEST_F(StreamCreditTest, AShortPauseKeepsTheWindow) {
  StreamCredit credit(64 * kKiB, 32 * kMiB, policy);
  credit.on_received(64 * kKiB, at(milliseconds(0)));
  credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(0)), {});
  ASSERT_EQ(credit.window(), 128 * kKiB);
  credit.on_received(128 * kKiB, at(milliseconds(1)));
  credit.pause_if_unwanted(false, at(milliseconds(1)));
  credit.resume_if_wanted(true, at(milliseconds(999)));
  EXPECT_EQ(credit.window(), 128 * kKiB);
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(1000)), {}).shrunk_to,
            0u);
}

TEST_F(StreamCreditTest, TheQuietPeriodIsAtLeastARoundTrip) {
  StreamCredit credit(kMark, policy);
  credit.on_received(10 * kKiB, at(milliseconds(0)));
  credit.evaluate(10 * kKiB, true, CreditTrigger::arrival, at(milliseconds(0)), milliseconds(30));
  EXPECT_EQ(*credit.quiet_deadline(), at(milliseconds(30)));
}

TEST_F(StreamCreditTest, AReaderSlowerThanThePathNeverGrowsItsWindow) {
  StreamCredit credit(kMark, policy);
  // A window every 160 ms on a 50 ms path (half of one in 80 ms, over 1.5 round
  // trips): the reader sets the rate.
  for (int window = 0; window < 8; ++window) {
    credit.on_received(kMark, at(milliseconds(160 * window)));
    EXPECT_EQ(credit
                  .evaluate(0, true, CreditTrigger::reader, at(milliseconds(160 * window + 160)),
                            milliseconds(50))
                  .grown_to,
              0u);
  }
  EXPECT_EQ(credit.window(), kMark);
}

// A sender in slow start fills half the window per round trip just before it would
// fill all of it: the window grows, or the sender's congestion window stops at ours.
TEST_F(StreamCreditTest, HalfAWindowPerRoundTripStillGrows) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark / 2, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(51)), milliseconds(50))
                .grown_to,
            2 * kMark);
}

TEST_F(StreamCreditTest, AReaderThatLeftBytesWaitingNeverGrowsItsWindow) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  credit.pause_if_unwanted(false, at(milliseconds(1)));
  credit.resume_if_wanted(true, at(milliseconds(61)));
  // Fast enough, but it held the stream Paused for over a round trip: its bytes
  // waited, not the server.
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(62)), milliseconds(50))
                .grown_to,
            0u);
  // Nor while it has held it Paused for a quarter of a round trip now.
  credit.on_received(kMark, at(milliseconds(62)));
  credit.pause_if_unwanted(false, at(milliseconds(62)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(75)), milliseconds(50))
                .grown_to,
            0u);
  EXPECT_EQ(credit.window(), kMark);
}

// A window that lands in one burst touches the mark before the reader wakes: a pause
// of an instant is not a reader leaving bytes waiting.
TEST_F(StreamCreditTest, AnInstantAtTheMarkDoesNotStopGrowth) {
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  credit.pause_if_unwanted(false, at(milliseconds(0)));
  credit.resume_if_wanted(true, at(milliseconds(1)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(1)), milliseconds(50))
                .grown_to,
            12800 * kKiB);  // 256 KiB in 1 ms: 12.5 MiB for two round trips
  // Nor does the next window's burst, looked at while it is still Paused.
  credit.on_received(12800 * kKiB, at(milliseconds(51)));
  credit.pause_if_unwanted(false, at(milliseconds(51)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::arrival, at(milliseconds(52)), milliseconds(50))
                .grown_to,
            16 * kMiB);
}

TEST_F(StreamCreditTest, NoMaxWindowKeepsTheMark) {
  policy.max_window = 0;
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(1)), milliseconds(50))
                .grown_to,
            0u);
}

TEST_F(StreamCreditTest, TheLedgerSumsWindowsAndCapsTheirGrowth) {
  WindowLedger ledger(1 * kMiB);
  policy.ledger = &ledger;
  StreamCredit first(kMark, policy);
  {
    StreamCredit second(kMark, policy);
    EXPECT_EQ(ledger.granted(), 2 * kMark);
    second.retire();  // the exchange ended; its record may live on
    EXPECT_EQ(ledger.granted(), kMark);
  }
  EXPECT_EQ(ledger.granted(), kMark);
  first.on_received(kMark, at(milliseconds(0)));
  const CreditGrant grant =
      first.evaluate(0, true, CreditTrigger::reader, at(milliseconds(1)), milliseconds(50));
  EXPECT_EQ(grant.grown_to, 1 * kMiB);  // all the room the cap leaves
  EXPECT_EQ(ledger.granted(), 1 * kMiB);
  EXPECT_EQ(ledger.room(), 0u);
}

TEST_F(StreamCreditTest, ALedgerWithoutACapLetsWindowsGrow) {
  WindowLedger ledger;
  policy.ledger = &ledger;
  StreamCredit credit(kMark, policy);
  credit.on_received(kMark, at(milliseconds(0)));
  EXPECT_EQ(credit.evaluate(0, true, CreditTrigger::reader, at(milliseconds(10)), milliseconds(50))
                .grown_to,
            1280 * kKiB);
  EXPECT_EQ(ledger.granted(), 1280 * kKiB);
}

TEST_F(StreamCreditTest, AMovedCreditCarriesItsShareOfTheLedger) {
  WindowLedger ledger;
  policy.ledger = &ledger;
  {
    StreamCredit original(kMark, policy);
    StreamCredit moved(std::move(original));
    EXPECT_EQ(ledger.granted(), kMark);
  }
  EXPECT_EQ(ledger.granted(), 0u);
}

TEST(WindowText, NamesSizesAndRoundTrips) {
  EXPECT_EQ(window_text(256 * 1024), "256 KiB");
  EXPECT_EQ(window_text(16 * 1024 * 1024), "16 MiB");
  EXPECT_EQ(window_text(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(window_text(1000), "1000 B");
  EXPECT_EQ(rtt_text(std::chrono::microseconds(50200)), "50.2 ms");
  EXPECT_EQ(rtt_text(std::chrono::microseconds(80)), "80 us");
}

}  // namespace
}  // namespace sluice
