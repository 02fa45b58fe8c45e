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

// Waits for a waiting acquire to see its stall window end (an event, not a time).
void wait_for_windows(const UploadBudget& budget, std::uint64_t ended) {
  while (budget.stall_windows_ended() < ended) std::this_thread::yield();
}

TEST(UploadBudget, ASendOverTheLimitWaitsUntilATransportTookEnough) {
  UploadBudget budget(2 * kMiB);
  budget.set_stall_window(std::chrono::hours(1));  // only the release ends this wait
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
}

// While the held bodies move, a send waits on through any number of stall windows;
// the first window in which nothing moved ends the wait (a server that reads no more
// until its answer is read would otherwise hold the sender forever).
TEST(UploadBudget, AWaitLastsWhileTheHeldBodiesMoveAndEndsInTheFirstStillWindow) {
  UploadBudget budget(1 * kMiB);
  budget.set_stall_window(std::chrono::hours(1));  // windows end only when the test says
  budget.acquire(1 * kMiB, true);
  std::atomic<bool> acquired{false};
  std::thread sender([&] {
    budget.acquire(1 * kMiB, true);
    acquired = true;
  });
  while (budget.waits() == 0) std::this_thread::yield();
  for (std::uint64_t window = 1; window <= 3; ++window) {
    budget.note_taken(64 * 1024);  // the transports took some of the held body
    budget.end_stall_window();
    wait_for_windows(budget, window);
    EXPECT_FALSE(acquired.load()) << "the send gave up in window " << window
                                  << " although the bodies moved";
  }
  budget.end_stall_window();  // a window in which nothing was taken
  sender.join();
  EXPECT_TRUE(acquired.load());
  EXPECT_EQ(budget.stall_windows_ended(), 4u);
  EXPECT_EQ(budget.held(), 2 * kMiB) << "the send that gave up waiting still counts";
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
