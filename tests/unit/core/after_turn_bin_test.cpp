// AfterTurnBin on a real EventLoop: what is retired in a turn lives to the end of it
// and is freed, all together, in the next.
#include "core/after_turn_bin.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

namespace sluice {
namespace {

struct Tracked {
  Tracked(std::vector<int>& freed, int id, std::function<void()> on_free = {})
      : freed_(freed), id_(id), on_free_(std::move(on_free)) {}
  ~Tracked() {
    freed_.push_back(id_);
    if (on_free_) on_free_();
  }
  std::vector<int>& freed_;
  int id_;
  std::function<void()> on_free_;
};

TEST(AfterTurnBin, WhatATurnRetiresLivesToItsEndAndGoesInOneBatch) {
  EventLoop loop;
  AfterTurnBin<Tracked> bin(loop);
  std::vector<int> freed;
  std::vector<int> seen_by_later_task;
  loop.post([&] {
    bin.retire(std::make_unique<Tracked>(freed, 1));
    bin.retire(std::make_unique<Tracked>(freed, 2));
    EXPECT_TRUE(freed.empty());  // still this turn
    EXPECT_EQ(bin.waiting(), 2u);
    loop.post([&] {
      seen_by_later_task = freed;
      loop.stop();
    });
  });
  loop.run();
  EXPECT_EQ(seen_by_later_task, (std::vector<int>{1, 2}));
  EXPECT_EQ(bin.waiting(), 0u);
}

TEST(AfterTurnBin, AnObjectRetiredWhileABatchIsFreedGoesInTheNext) {
  EventLoop loop;
  AfterTurnBin<Tracked> bin(loop);
  std::vector<int> freed;
  loop.post([&] {
    bin.retire(std::make_unique<Tracked>(freed, 1,
                                         [&] { bin.retire(std::make_unique<Tracked>(freed, 2)); }));
  });
  // Three turns: the retire, the first batch, the second.
  loop.post([&] { loop.post([&] { loop.post([&] { loop.stop(); }); }); });
  loop.run();
  EXPECT_EQ(freed, (std::vector<int>{1, 2}));
  EXPECT_EQ(bin.waiting(), 0u);
}

TEST(AfterTurnBin, WhatWasRetiredIsFreedWhenTheBinGoesFirst) {
  EventLoop loop;
  auto bin = std::make_unique<AfterTurnBin<Tracked>>(loop);
  std::vector<int> freed;
  bin->retire(std::make_unique<Tracked>(freed, 7));
  bin.reset();
  EXPECT_TRUE(freed.empty());
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_EQ(freed, (std::vector<int>{7}));
}

}  // namespace
}  // namespace sluice
