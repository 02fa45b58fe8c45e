#include "core/inline_task.hpp"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace {

// Counts the live copies of what a task captured, so a test sees each one destroyed
// exactly once however the task moved.
struct Tracked {
  explicit Tracked(int* live_in) : live(live_in) { ++*live; }
  Tracked(Tracked&& other) noexcept : live(other.live) { ++*live; }
  Tracked(const Tracked&) = delete;
  ~Tracked() { --*live; }
  int* live;
};

TEST(InlineTask, RunsASmallCallableHeldInline) {
  int runs = 0;
  auto shared = std::make_shared<int>(7);
  InlineTask task([&runs, shared] { runs += *shared; });
  ASSERT_TRUE(task);
  task();
  task();
  EXPECT_EQ(runs, 14);
}

TEST(InlineTask, RunsACallableLargerThanItsRoomFromTheHeap) {
  std::array<char, InlineTask::kInlineBytes * 2> big{};
  big.fill('x');
  std::string seen;
  InlineTask task([big, &seen] { seen.assign(big.begin(), big.end()); });
  InlineTask moved = std::move(task);
  EXPECT_FALSE(task);  // NOLINT(bugprone-use-after-move): moved-from is empty
  moved();
  EXPECT_EQ(seen, std::string(big.size(), 'x'));
}

TEST(InlineTask, DestroysWhatItCapturedOnceWhetherInlineOrOnTheHeap) {
  int live = 0;
  {
    InlineTask small([tracked = Tracked(&live)] { (void)tracked; });
    InlineTask large([tracked = Tracked(&live), pad = std::array<char, 200>{}] {
      (void)tracked;
      (void)pad;
    });
    EXPECT_EQ(live, 2);
    InlineTask small_moved(std::move(small));
    InlineTask large_moved(std::move(large));
    EXPECT_EQ(live, 2);
    small_moved = std::move(large_moved);  // the small one's capture goes now
    EXPECT_EQ(live, 1);
  }
  EXPECT_EQ(live, 0);
}

TEST(InlineTask, OwnsAMoveOnlyCapture) {
  auto owned = std::make_unique<int>(3);
  int seen = 0;
  InlineTask task([owned = std::move(owned), &seen] { seen = *owned; });
  std::vector<InlineTask> queue;
  queue.push_back(std::move(task));
  for (int i = 0; i < 20; ++i) queue.emplace_back([] {});  // reallocations move it
  queue.front()();
  EXPECT_EQ(seen, 3);
}

TEST(InlineTask, AnEmptyTaskDoesNothing) {
  InlineTask empty;
  EXPECT_FALSE(empty);
  empty();
  InlineTask from_null(nullptr);
  EXPECT_FALSE(from_null);
}

TEST(InlineTask, TakesAStdFunction) {
  int runs = 0;
  std::function<void()> function = [&runs] { ++runs; };
  InlineTask task(function);
  task();
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace sluice
