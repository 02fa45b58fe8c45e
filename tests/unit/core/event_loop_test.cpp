#include "core/event_loop.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/manual_clock.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// Ends a test's run() even if what it waits for never happens.
void add_deadline(EventLoop& loop, bool& timed_out) {
  loop.add_timer(Clock::now() + 2s, [&] {
    timed_out = true;
    loop.stop();
  });
}

// A readable (count 1) or idle eventfd, closed at the end of the test.
struct EventFd {
  explicit EventFd(bool readable) : fd(eventfd(readable ? 1 : 0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~EventFd() {
    if (fd >= 0) close(fd);
  }
  int fd;
};

class CallbackWatcher final : public FdWatcher {
 public:
  explicit CallbackWatcher(std::function<void(std::uint32_t)> on_ready)
      : on_ready_(std::move(on_ready)) {}
  void on_fd_ready(std::uint32_t events) override { on_ready_(events); }

 private:
  std::function<void(std::uint32_t)> on_ready_;
};

TEST(EventLoop, TimersFireInDeadlineOrder) {
  EventLoop loop;
  std::vector<int> order;
  const TimePoint start = Clock::now();
  loop.add_timer(start + 30ms, [&] { order.push_back(3); });
  loop.add_timer(start + 10ms, [&] { order.push_back(1); });
  loop.add_timer(start + 20ms, [&] { order.push_back(2); });
  loop.add_timer(start + 40ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_GE(loop.now(), start + 40ms);
}

TEST(EventLoop, TimersWithTheSameDeadlineFireInAddingOrder) {
  EventLoop loop;
  std::vector<int> order;
  const TimePoint when = Clock::now() + 5ms;
  for (int i = 0; i < 5; ++i) loop.add_timer(when, [&order, i] { order.push_back(i); });
  loop.add_timer(when + 1ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(EventLoop, CancelledTimerNeverFires) {
  EventLoop loop;
  bool fired = false;
  const auto id = loop.add_timer(Clock::now() + 5ms, [&] { fired = true; });
  loop.add_timer(Clock::now() + 20ms, [&] { loop.stop(); });
  loop.cancel_timer(id);
  loop.cancel_timer(id);      // twice: a no-op
  loop.cancel_timer(999999);  // unknown: a no-op
  loop.run();
  EXPECT_FALSE(fired);
}

TEST(EventLoop, TimerTaskMayCancelALaterDueTimerOfTheSameTurn) {
  EventLoop loop;
  bool second_fired = false;
  const TimePoint when = Clock::now() + 5ms;
  EventLoop::TimerId second = 0;
  loop.add_timer(when, [&] { loop.cancel_timer(second); });
  second = loop.add_timer(when, [&] { second_fired = true; });
  loop.add_timer(when + 10ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(second_fired);
}

TEST(EventLoop, TimerTaskMayAddTimers) {
  EventLoop loop;
  int rounds = 0;
  std::function<void()> again = [&] {
    if (++rounds == 5) {
      loop.stop();
      return;
    }
    loop.add_timer(loop.now(), again);  // due at once: runs on a later turn
  };
  loop.add_timer(Clock::now(), again);
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_EQ(rounds, 5);
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, ManyCancelledTimersDoNotDelayALiveOne) {
  EventLoop loop;
  for (int i = 0; i < 1000; ++i) loop.cancel_timer(loop.add_timer(Clock::now() + 1h, [] {}));
  bool fired = false;
  loop.add_timer(Clock::now() + 1ms, [&] {
    fired = true;
    loop.stop();
  });
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_TRUE(fired);
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, PostFromAnotherThreadRunsOnTheLoopThread) {
  EventLoop loop;
  std::thread::id loop_thread;
  std::thread::id task_thread;
  std::thread runner([&] {
    loop_thread = std::this_thread::get_id();
    loop.run();
  });
  loop.post([&] {
    task_thread = std::this_thread::get_id();
    loop.stop();
  });
  runner.join();
  EXPECT_EQ(task_thread, loop_thread);
  EXPECT_NE(task_thread, std::this_thread::get_id());
}

// A post from the loop's own thread writes no eventfd (the thread is awake): the
// loop must still run it before it sleeps, whichever part of the turn posted it.
TEST(EventLoop, PostsFromTheLoopThreadRunWithoutAWakeFromOutside) {
  EventLoop loop;
  bool timed_out = false;
  std::vector<std::string> ran;
  std::thread runner([&] {
    add_deadline(loop, timed_out);
    loop.add_timer(Clock::now(), [&] {
      loop.at_turn_end([&] {
        ran.push_back("turn end");
        loop.post([&] {
          ran.push_back("posted by a turn-end task");
          loop.post([&] {
            ran.push_back("posted by a posted task");
            loop.stop();
          });
        });
      });
    });
    loop.run();
  });
  runner.join();
  EXPECT_FALSE(timed_out) << "the loop slept with its own post unrun";
  EXPECT_EQ(ran, (std::vector<std::string>{"turn end", "posted by a turn-end task",
                                           "posted by a posted task"}));
}

// A loop asked to poll before it sleeps still wakes, whether the fd event and the post
// from another thread come while it polls or after it went to sleep: the poll hands
// on what it finds and then sleeps as it would have.
TEST(EventLoop, ALoopAskedToPollBeforeSleepingStillWakesForAnEventAndAPost) {
  EventLoop loop;
  EventFd ready(false);
  bool timed_out = false;
  int fd_events = 0;
  std::promise<void> poll_asked;
  std::promise<void> fd_seen;
  CallbackWatcher watcher([&](std::uint32_t) {
    ++fd_events;
    std::uint64_t count = 0;
    [[maybe_unused]] auto got = read(ready.fd, &count, sizeof count);
    loop.poll_before_sleep();
    fd_seen.set_value();
  });
  bool watching = false;
  std::thread runner([&] {
    add_deadline(loop, timed_out);
    watching = static_cast<bool>(loop.watch(ready.fd, EPOLLIN, &watcher));
    // Asked from inside the loop, so no post from outside is pending when it polls.
    loop.add_timer(Clock::now(), [&] {
      loop.poll_before_sleep();
      poll_asked.set_value();
    });
    loop.run();
    loop.unwatch(ready.fd);
  });
  poll_asked.get_future().wait();
  const std::uint64_t one = 1;
  ASSERT_EQ(write(ready.fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  fd_seen.get_future().wait();
  loop.post([&] { loop.stop(); });  // while the loop polls again, or sleeps
  runner.join();
  EXPECT_TRUE(watching);
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(fd_events, 1);
}

TEST(EventLoop, PostedTasksRunInPostingOrder) {
  EventLoop loop;
  std::vector<int> order;
  std::thread runner([&] { loop.run(); });
  for (int i = 0; i < 100; ++i) loop.post([&order, i] { order.push_back(i); });
  loop.post([&] { loop.stop(); });
  runner.join();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(EventLoop, StopFromAnotherThreadStillRunsTasksPostedBeforeIt) {
  EventLoop loop;
  std::promise<void> started;
  std::thread runner([&] { loop.run(); });
  loop.post([&] { started.set_value(); });
  if (started.get_future().wait_for(10s) != std::future_status::ready) {
    loop.stop();
    runner.join();
    FAIL() << "the loop never ran a posted task";
  }
  int ran = 0;
  loop.post([&] { ++ran; });
  loop.post([&] { ++ran; });
  loop.stop();
  runner.join();
  EXPECT_EQ(ran, 2);
}

TEST(EventLoop, RunsAgainAfterStop) {
  EventLoop loop;
  loop.post([&] { loop.stop(); });
  loop.run();
  bool second = false;
  loop.add_timer(Clock::now() + 1ms, [&] {
    second = true;
    loop.stop();
  });
  loop.run();
  EXPECT_TRUE(second);
}

TEST(EventLoop, ReadyFdReachesItsWatcherWithTheEvents) {
  EventLoop loop;
  EventFd ready(true);
  std::uint32_t seen = 0;
  CallbackWatcher watcher([&](std::uint32_t events) {
    seen = events;
    loop.unwatch(ready.fd);
    loop.stop();
  });
  ASSERT_TRUE(loop.watch(ready.fd, EPOLLIN, &watcher));
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_TRUE(seen & EPOLLIN);
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, TurnEndTasksRunOnceAfterEveryEventOfTheTurn) {
  EventLoop loop;
  EventFd first(true);
  EventFd second(true);
  std::vector<std::string> order;
  bool scheduled = false;
  // Both fds are ready in the same turn; each schedules the same turn-end work, which
  // must run once, after both.
  auto on_ready = [&](const char* name, int fd) {
    order.push_back(name);
    loop.unwatch(fd);
    if (!scheduled) {
      scheduled = true;
      loop.at_turn_end([&] {
        order.push_back("turn end");
        loop.at_turn_end([&] {
          order.push_back("nested");
          loop.stop();
        });
      });
    }
  };
  CallbackWatcher watch_first([&](std::uint32_t) { on_ready("first", first.fd); });
  CallbackWatcher watch_second([&](std::uint32_t) { on_ready("second", second.fd); });
  ASSERT_TRUE(loop.watch(first.fd, EPOLLIN, &watch_first));
  ASSERT_TRUE(loop.watch(second.fd, EPOLLIN, &watch_second));
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[2], "turn end");
  EXPECT_EQ(order[3], "nested") << "a turn-end task's own turn-end task runs before sleeping";
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, TurnObserverRunsAfterEachTurnsEndWorkUntilRemoved) {
  EventLoop loop;
  std::vector<std::string> order;
  EventLoop::ObserverId id = 0;
  std::function<void()> third = [&] {
    loop.remove_turn_observer(id);
    order.push_back("removed");
    loop.stop();
  };
  std::function<void()> second = [&] {
    order.push_back("second turn");
    loop.post(third);
  };
  loop.post([&] {
    id = loop.add_turn_observer([&] { order.push_back("observer"); });
    loop.at_turn_end([&] {
      order.push_back("turn end");
      loop.post(second);
    });
  });
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_EQ(order, (std::vector<std::string>{"turn end", "observer", "second turn", "observer",
                                             "removed"}));
  EXPECT_FALSE(timed_out);
}

// A posted task that re-posts itself and schedules turn-end work (as a connection
// streaming a fast body does) must not keep the loop from its timers.
TEST(EventLoop, TurnEndWorkDoesNotStarveTimers) {
  EventLoop loop;
  int reposts = 0;
  int reposts_when_timer_fired = -1;
  std::function<void()> busy = [&] {
    ++reposts;
    loop.at_turn_end([] {});
    if (reposts_when_timer_fired < 0 && reposts < 100000) loop.post(busy);
  };
  loop.add_timer(Clock::now(), [&] {
    reposts_when_timer_fired = reposts;
    loop.stop();
  });
  loop.post(busy);
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_GE(reposts_when_timer_fired, 0);
  EXPECT_LE(reposts_when_timer_fired, 3) << "the timer waited for the busy task";
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, ModifySwitchesTheEventsWatched) {
  EventLoop loop;
  EventFd idle(false);  // writable, not readable
  int calls = 0;
  CallbackWatcher watcher([&](std::uint32_t events) {
    ++calls;
    EXPECT_TRUE(events & EPOLLOUT);
    loop.unwatch(idle.fd);
    loop.stop();
  });
  ASSERT_TRUE(loop.watch(idle.fd, EPOLLIN, &watcher));
  loop.add_timer(Clock::now() + 10ms, [&] {
    EXPECT_EQ(calls, 0);  // not readable: nothing yet
    ASSERT_TRUE(loop.modify(idle.fd, EPOLLOUT));
  });
  bool timed_out = false;
  add_deadline(loop, timed_out);
  loop.run();
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(timed_out);
}

TEST(EventLoop, WatchingAnFdTwiceOrModifyingAnUnwatchedOneFails) {
  EventLoop loop;
  EventFd fd(false);
  CallbackWatcher watcher([](std::uint32_t) {});
  ASSERT_TRUE(loop.watch(fd.fd, EPOLLIN, &watcher));
  EXPECT_FALSE(loop.watch(fd.fd, EPOLLIN, &watcher));
  loop.unwatch(fd.fd);
  auto modified = loop.modify(fd.fd, EPOLLOUT);
  ASSERT_FALSE(modified);
  EXPECT_NE(modified.error().message().find("fd"), std::string::npos);
}

// Both fds are ready in the same batch; whichever fires first unwatches both and
// deletes the other's watcher. No second call may follow (ASan also catches a
// call through the deleted watcher).
TEST(EventLoop, UnwatchInsideABatchSuppressesTheOtherFdsPendingEvent) {
  EventLoop loop;
  EventFd a(true);
  EventFd b(true);
  int calls = 0;
  CallbackWatcher* watcher_a = nullptr;
  CallbackWatcher* watcher_b = nullptr;
  auto on_ready = [&](CallbackWatcher*& other) {
    if (++calls > 1) return;
    loop.unwatch(a.fd);
    loop.unwatch(b.fd);
    delete other;
    other = nullptr;
    loop.add_timer(loop.now() + 10ms, [&loop] { loop.stop(); });
  };
  watcher_a = new CallbackWatcher([&](std::uint32_t) { on_ready(watcher_b); });
  watcher_b = new CallbackWatcher([&](std::uint32_t) { on_ready(watcher_a); });
  ASSERT_TRUE(loop.watch(a.fd, EPOLLIN, watcher_a));
  ASSERT_TRUE(loop.watch(b.fd, EPOLLIN, watcher_b));
  loop.run();
  EXPECT_EQ(calls, 1);
  delete watcher_a;
  delete watcher_b;
}

TEST(EventLoop, WatcherMayUnwatchAndDeleteItself) {
  EventLoop loop;
  EventFd ready(true);
  bool called = false;
  struct SelfDeleting final : FdWatcher {
    EventLoop* loop;
    int fd;
    bool* called;
    void on_fd_ready(std::uint32_t) override {
      *called = true;
      loop->unwatch(fd);
      delete this;
    }
  };
  auto* watcher = new SelfDeleting;
  watcher->loop = &loop;
  watcher->fd = ready.fd;
  watcher->called = &called;
  ASSERT_TRUE(loop.watch(ready.fd, EPOLLIN, watcher));
  loop.add_timer(Clock::now() + 20ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_TRUE(called);
}

// A stale event for fd N (unwatched and closed earlier in the batch) must not reach
// a new watcher of a new file that got the same number N.
TEST(EventLoop, StaleEventOfAReusedFdNumberIsNotDelivered) {
  EventLoop loop;
  auto a = std::make_unique<EventFd>(true);
  auto b = std::make_unique<EventFd>(true);
  std::unique_ptr<EventFd> replacement;
  int replacement_calls = 0;
  bool swapped = false;
  CallbackWatcher replacement_watcher([&](std::uint32_t) { ++replacement_calls; });
  auto swap_out = [&](std::unique_ptr<EventFd>& victim) {
    swapped = true;
    const int number = victim->fd;
    loop.unwatch(number);
    victim.reset();
    replacement = std::make_unique<EventFd>(false);  // not readable
    ASSERT_EQ(replacement->fd, number);              // the kernel reuses the lowest free number
    ASSERT_TRUE(loop.watch(replacement->fd, EPOLLIN, &replacement_watcher));
  };
  CallbackWatcher watcher_a([&](std::uint32_t) {
    if (!swapped) swap_out(b);
  });
  CallbackWatcher watcher_b([&](std::uint32_t) {
    if (!swapped) swap_out(a);
  });
  ASSERT_TRUE(loop.watch(a->fd, EPOLLIN, &watcher_a));
  ASSERT_TRUE(loop.watch(b->fd, EPOLLIN, &watcher_b));
  loop.add_timer(Clock::now() + 20ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_TRUE(swapped);
  EXPECT_EQ(replacement_calls, 0);
  if (a) loop.unwatch(a->fd);
  if (b) loop.unwatch(b->fd);
  loop.unwatch(replacement->fd);
}

TEST(EventLoop, NowAdvancesFromTurnToTurn) {
  EventLoop loop;
  TimePoint first;
  TimePoint second;
  loop.add_timer(Clock::now(), [&] { first = loop.now(); });
  loop.add_timer(Clock::now() + 15ms, [&] {
    second = loop.now();
    loop.stop();
  });
  loop.run();
  EXPECT_GE(second - first, 10ms);
}

// --- On a manual clock -----------------------------------------------------------

// A loop on a manual clock: an hour-long timer fires as soon as the test moves the
// clock an hour and wakes the loop, and not a moment before, whatever real time does.
TEST(EventLoopManualClock, TimersFireWhenTheClockIsMovedNotWhenRealTimePasses) {
  test::ManualClock clock;
  EventLoop loop(clock);
  std::promise<TimePoint> fired;
  const TimePoint due = clock.now() + 1h;
  loop.add_timer(due, [&] { fired.set_value(loop.now()); });
  std::thread thread([&] { loop.run(); });
  std::future<TimePoint> when = fired.get_future();
  clock.advance(59min, loop);
  // The loop is awake for the post, sees the timer is not due, and sleeps again.
  std::promise<void> turned;
  loop.post([&] { turned.set_value(); });
  turned.get_future().wait();
  EXPECT_EQ(when.wait_for(0s), std::future_status::timeout);
  clock.advance(1min, loop);
  ASSERT_EQ(when.wait_for(10s), std::future_status::ready) << "the timer never fired";
  EXPECT_EQ(when.get(), due);
  loop.stop();
  thread.join();
}

TEST(EventLoopManualClock, NowIsTheClocksTime) {
  test::ManualClock clock;
  EventLoop loop(clock);
  const TimePoint before = loop.now();
  clock.advance(250ms);
  EXPECT_EQ(loop.now(), before + 250ms);
  EXPECT_FALSE(loop.passes_by_itself());
}

}  // namespace
}  // namespace sluice
