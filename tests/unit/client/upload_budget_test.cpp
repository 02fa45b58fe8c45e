#include "client/upload_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
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
