#include "body/upload_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace sluice {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;

TEST(UploadBudget, BodiesWithinTheLimitNeverWait) {
  UploadBudget budget(4 * kMiB);
  budget.acquire(3 * kMiB, true);
  budget.acquire(1 * kMiB, true);
  EXPECT_EQ(budget.held(), 4 * kMiB);
  EXPECT_EQ(budget.waits(), 0u);
}

// Room that can never be made is never waited for: a body larger than the whole
// limit goes alone.
TEST(UploadBudget, ABodyLargerThanTheLimitGoesWhenNothingIsHeld) {
  UploadBudget budget(1 * kMiB);
  budget.acquire(8 * kMiB, true);
  EXPECT_EQ(budget.held(), 8 * kMiB);
  EXPECT_EQ(budget.waits(), 0u);
}

// A wait ends by the budget's own events only: a release, or the HTTP thread's
// check finding the held bodies still. With no check, no time ends it.
TEST(UploadBudget, ASendOverTheLimitWaitsUntilATransportTookEnough) {
  UploadBudget budget(2 * kMiB);
  budget.acquire(2 * kMiB, true);
  std::atomic<bool> acquired{false};
  std::thread sender([&] {
    budget.acquire(1 * kMiB, true);
    acquired = true;
  });
  // waits() moves under the lock before the sender sleeps: from then on it waits.
  while (budget.waits() == 0) std::this_thread::yield();
  EXPECT_FALSE(acquired.load()) << "the sender went past the limit";
  budget.release(1 * kMiB);  // 1 MiB held: 1 more fits
  sender.join();
  EXPECT_TRUE(acquired.load());
  EXPECT_EQ(budget.held(), 2 * kMiB);
  EXPECT_EQ(budget.stalls(), 0u);
}

// The test thread plays the HTTP thread: the first wait asks it to watch, and each
// check_stall() is one stall window's end. While the held bodies move, the send waits
// on through any number of windows; the first window in which nothing moved ends the
// wait (a server that reads no more until its answer is read would otherwise hold
// the sender forever).
TEST(UploadBudget, AWaitLastsWhileTheHeldBodiesMoveAndEndsInTheFirstStillWindow) {
  std::atomic<int> watches{0};
  UploadBudget budget(1 * kMiB, [&watches] { ++watches; });
  budget.acquire(1 * kMiB, true);
  EXPECT_EQ(watches.load(), 0) << "nobody waits: nothing to watch";
  std::atomic<bool> acquired{false};
  std::thread sender([&] {
    budget.acquire(1 * kMiB, true);
    acquired = true;
  });
  while (watches.load() == 0) std::this_thread::yield();
  for (int window = 1; window <= 3; ++window) {
    budget.note_taken(64 * 1024);  // the transports took some of the held body
    EXPECT_TRUE(budget.check_stall()) << "a send waits: watch on";
    EXPECT_EQ(budget.stalls(), 0u) << "window " << window << " saw the bodies move";
  }
  EXPECT_TRUE(budget.check_stall());  // a window in which nothing was taken
  sender.join();
  EXPECT_TRUE(acquired.load());
  EXPECT_EQ(budget.stalls(), 1u);
  EXPECT_EQ(budget.held(), 2 * kMiB) << "the send that went past the limit still counts";
  EXPECT_FALSE(budget.check_stall()) << "nobody waits any more: the watch ends";
  EXPECT_EQ(watches.load(), 1);
}

// A send that starts waiting while a watch runs joins it: no second watch is asked.
TEST(UploadBudget, OneWatchServesEverySendWaitingAtOnce) {
  std::atomic<int> watches{0};
  UploadBudget budget(1 * kMiB, [&watches] { ++watches; });
  budget.acquire(1 * kMiB, true);
  std::thread first([&] { budget.acquire(1 * kMiB, true); });
  std::thread second([&] { budget.acquire(1 * kMiB, true); });
  while (budget.waits() < 2) std::this_thread::yield();
  EXPECT_EQ(watches.load(), 1);
  EXPECT_TRUE(budget.check_stall());  // still: both go
  first.join();
  second.join();
  EXPECT_EQ(budget.held(), 3 * kMiB);
  EXPECT_FALSE(budget.check_stall());
}

// The HTTP thread gives the budget back, so it must never wait for it.
TEST(UploadBudget, ACallerThatMayNotWaitGoesPastTheLimit) {
  UploadBudget budget(1 * kMiB);
  budget.acquire(1 * kMiB, true);
  budget.acquire(1 * kMiB, false);
  EXPECT_EQ(budget.held(), 2 * kMiB);
  EXPECT_EQ(budget.waits(), 0u);
}

TEST(UploadBudget, NoLimitNeverWaits) {
  UploadBudget budget(0);
  budget.acquire(100 * kMiB, true);
  budget.acquire(100 * kMiB, true);
  EXPECT_EQ(budget.waits(), 0u);
}

TEST(UploadShare, GivesBackOnceWhetherReleasedMovedOrDestroyed) {
  auto budget = std::make_shared<UploadBudget>(8 * kMiB);
  budget->acquire(3 * kMiB, true);
  {
    UploadShare first(budget, 1 * kMiB);
    UploadShare second(budget, 2 * kMiB);
    first.release();
    first.release();
    EXPECT_EQ(budget->held(), 2 * kMiB);
    UploadShare moved(std::move(second));
    EXPECT_EQ(budget->held(), 2 * kMiB) << "a move gives nothing back";
  }
  EXPECT_EQ(budget->held(), 0u);
}

}  // namespace
}  // namespace sluice
