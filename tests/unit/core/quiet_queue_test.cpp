// QuietQueue against a plain map of deadlines, the truth a session's scan would
// find: the earliest is exact whether deadlines moved later (arrivals), went away
// (pauses, streams gone) or moved earlier (a noted evaluation), and due streams come
// out once, earliest first. A random walk checks it against the scan.
#include "core/quiet_queue.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace sluice {
namespace {

using namespace std::chrono_literals;

class QuietQueueTest : public ::testing::Test {
 protected:
  TimePoint at(int ms) const { return TimePoint() + std::chrono::milliseconds(ms); }
  // Sets a stream's deadline (nullopt: none) and notes it, as a session does.
  void set(QuietQueue::StreamId id, std::optional<TimePoint> due) {
    set_quietly(id, due);
    queue_.note(id, due);
  }
  // Changes it without a note: what a session does not report (later, or gone).
  void set_quietly(QuietQueue::StreamId id, std::optional<TimePoint> due) {
    if (due) {
      truth_[id] = *due;
    } else {
      truth_.erase(id);
    }
  }
  std::optional<TimePoint> scanned() const {
    std::optional<TimePoint> earliest;
    for (const auto& [id, due] : truth_) {
      if (!earliest || due < *earliest) earliest = due;
    }
    return earliest;
  }
  QuietQueue::DueOf due_of() const {
    return [this](QuietQueue::StreamId id) -> std::optional<TimePoint> {
      const auto found = truth_.find(id);
      if (found == truth_.end()) return std::nullopt;
      return found->second;
    };
  }

  std::map<QuietQueue::StreamId, TimePoint> truth_;
  QuietQueue queue_;
};

TEST_F(QuietQueueTest, LaterAndVanishedDeadlinesAreFoundAtTheFront) {
  set(1, at(10));
  set(3, at(20));
  EXPECT_EQ(queue_.earliest(due_of()), at(10));
  set_quietly(1, at(30));  // bytes arrived: later, not noted
  EXPECT_EQ(queue_.earliest(due_of()), at(20));
  set_quietly(3, std::nullopt);  // paused
  EXPECT_EQ(queue_.earliest(due_of()), at(30));
  set_quietly(1, std::nullopt);  // gone
  EXPECT_EQ(queue_.earliest(due_of()), std::nullopt);
  EXPECT_EQ(queue_.size(), 0u);
}

TEST_F(QuietQueueTest, AnEarlierDeadlineThatIsNotedComesFirst) {
  set(1, at(50));
  set(2, at(40));
  set(1, at(30));  // an evaluation learned a shorter round trip
  EXPECT_EQ(queue_.earliest(due_of()), at(30));
  EXPECT_EQ(queue_.take_due(at(45), due_of()), (std::vector<QuietQueue::StreamId>{1, 2}));
  // Taken: each leaves until noted again, and the superseded entry of 1 goes too.
  EXPECT_EQ(queue_.earliest(due_of()), std::nullopt);
}

TEST_F(QuietQueueTest, ArrivalsThatMoveADeadlineLaterQueueNothing) {
  set(7, at(1));
  for (int ms = 2; ms < 1000; ++ms) set(7, at(ms));
  EXPECT_EQ(queue_.size(), 1u);
  EXPECT_EQ(queue_.earliest(due_of()), at(999));
}

TEST_F(QuietQueueTest, DueStreamsComeOutOnceEarliestFirst) {
  set(1, at(30));
  set(2, at(10));
  set(3, at(20));
  set(4, at(90));
  EXPECT_EQ(queue_.take_due(at(30), due_of()), (std::vector<QuietQueue::StreamId>{2, 3, 1}));
  EXPECT_TRUE(queue_.take_due(at(30), due_of()).empty());
  EXPECT_EQ(queue_.earliest(due_of()), at(90));
}

// Random changes, each reported as a session would (noted when it may be earlier,
// silent when later or gone): the queue's earliest always equals the scan's.
TEST_F(QuietQueueTest, AgreesWithAScanThroughARandomWalk) {
  std::mt19937 rng(18);
  int now = 0;
  for (int step = 0; step < 20000; ++step) {
    const QuietQueue::StreamId id = std::uniform_int_distribution<int>(0, 63)(rng);
    const int what = std::uniform_int_distribution<int>(0, 9)(rng);
    const auto current = due_of()(id);
    if (what < 5) {  // bytes arrived: a deadline after now, noted
      set(id, at(now + std::uniform_int_distribution<int>(1, 50)(rng)));
    } else if (what < 7) {  // paused, retired or credited: gone, silently
      set_quietly(id, std::nullopt);
    } else if (what < 8 && current) {  // an evaluation with a shorter rtt: earlier, noted
      set(id, std::max(at(now), *current - 5ms));
    } else {  // time passes; due streams are evaluated (no deadline until bytes come)
      now += std::uniform_int_distribution<int>(0, 5)(rng);
      for (const auto due : queue_.take_due(at(now), due_of())) {
        ASSERT_LE(truth_.at(due), at(now));
        set_quietly(due, std::nullopt);
      }
      for (const auto& [other, due] : truth_) ASSERT_GT(due, at(now)) << "missed stream " << other;
    }
    ASSERT_EQ(queue_.earliest(due_of()), scanned()) << "step " << step;
  }
  EXPECT_LE(queue_.size(), 2 * truth_.size() + 64);
}

}  // namespace
}  // namespace sluice
