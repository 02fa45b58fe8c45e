#pragma once
// EventLoop: the epoll loop of the HTTP thread, with a timer heap and an eventfd
// command queue.
// Ownership: run() and every method but post()/stop() are HTTP thread only.
// post() and stop() may be called from any thread.

#include <sys/epoll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/inline_task.hpp"
#include "core/test_hooks.hpp"
#include "core/time_source.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// Receives readiness for one file descriptor. Fires on the HTTP thread from run();
/// it may call any EventLoop method, including unwatch() of its own fd and deleting
/// itself after unwatching.
class FdWatcher {
 public:
  virtual ~FdWatcher() = default;
  /// `events` is the EPOLLIN/EPOLLOUT/EPOLLERR/EPOLLHUP mask epoll reported.
  virtual void on_fd_ready(std::uint32_t events) = 0;
};

class EventLoop final : public TimeSource {
 public:
  using TimerId = std::uint64_t;
  using Task = InlineTask;  // std::function's inline room is too small for a post

  /// Check status() after construction: epoll or the eventfd may be refused (out of
  /// descriptors); such a loop's run() returns at once. `clock` (which outlives the
  /// loop) is where the loop and everything on it read the time: the real clock, or
  /// a test's manual clock (timers then fire as the test moves it and wakes the loop
  /// with a post).
  explicit EventLoop(const TimeSource& clock = SteadyClock::instance());
  ~EventLoop();
  Result<void> status() const;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Runs until stop(); then runs the posted tasks that remain and returns.
  void run();
  /// After run() returned, on its thread: runs posted and turn-end tasks until none
  /// is left (those posted since run's own last drain).
  void run_remaining();
  /// Any thread. run() returns soon after.
  void stop();
  /// Any thread. `task` runs on the HTTP thread, in posting order.
  void post(Task task);
  /// HTTP thread only. `task` runs at the end of this turn, once the turn's socket
  /// events, timers and posted tasks have run and before the loop sleeps: work that
  /// many events of one turn would each do (wake a reader, write a socket) is done
  /// once for all of them.
  void at_turn_end(Task task);
  /// HTTP thread only. Before its next sleep the loop polls for events (epoll with
  /// no timeout) for up to kPollBeforeSleep, or until a timer is due: a thread that
  /// went to sleep runs again only about 13 us after the post or packet that woke it
  /// (measured on this project's 2-core VM), longer than a loopback server takes to
  /// answer a small request or a caller to send its next one. For the owner to ask
  /// only where an event is likely soon: a loop that polled whenever it waited would
  /// take the core its readers need.
  void poll_before_sleep() noexcept { poll_before_sleep_ = true; }
  static constexpr std::chrono::microseconds kPollBeforeSleep{30};

#if SLUICE_TEST_HOOKS
  /// HTTP thread only. A hook for tests (core/test_hooks.hpp) that wait for a state
  /// this thread's work changes (a stream paused, a request ended) instead of polling
  /// for it: `observer` runs at the end of every turn from now on, after the turn-end
  /// tasks, just before the loop sleeps, until removed. It only looks: it must not
  /// post, add a turn-end task or a timer, wake the loop, or add or remove an observer
  /// (the list is being walked), and unlike a turn-end task it keeps nobody awake.
  using ObserverId = std::uint64_t;
  ObserverId add_turn_observer(Task observer);
  /// HTTP thread only; a no-op for an unknown id.
  void remove_turn_observer(ObserverId id);
#endif

  /// Registers `fd` for `events` (EPOLLIN | EPOLLOUT ...); level-triggered.
  Result<void> watch(int fd, std::uint32_t events, FdWatcher* watcher);
  Result<void> modify(int fd, std::uint32_t events);
  /// Forgets `fd`; no further on_fd_ready for it, even in the current batch.
  void unwatch(int fd);

  /// Runs `task` once at `when` (or at the next turn if it has passed).
  TimerId add_timer(TimePoint when, Task task);
  /// Cancels a pending timer; a no-op for a fired or unknown id.
  void cancel_timer(TimerId id);

  /// The time now, from the loop's clock (for the real one a vDSO read, no
  /// syscall). Round trips are measured with it, so it is read afresh: a turn that
  /// finishes a TLS handshake spends a millisecond verifying a certificate before
  /// the first frames leave. Timers run by the time the turn started (a timer
  /// re-armed at now() waits for the next turn).
  TimePoint now() const noexcept override { return clock_.now(); }
  bool passes_by_itself() const noexcept override { return clock_.passes_by_itself(); }

 private:
  void wake();  // any thread: makes a sleeping run() return from epoll_wait
  struct Timer {
    TimePoint when;
    TimerId id;
    bool operator>(const Timer& other) const {
      return when != other.when ? when > other.when : id > other.id;
    }
  };
  // A registration; `generation` tells a stale event (queued for an fd that was
  // unwatched, closed and reused during the same batch) from a current one.
  struct Watch {
    FdWatcher* watcher;
    std::uint32_t generation;
  };
  void dispatch(const epoll_event& event);
  void run_due_timers();
  bool run_posted();    // whether any task ran
  bool run_turn_end();  // whether any task ran
  /// What the loop learns under posted_mu_ before it sleeps, in one look per turn:
  /// whether to stop, and whether tasks wait (the loop's own thread posts without
  /// writing the eventfd, so with tasks waiting the loop must not sleep).
  struct BeforeSleep {
    bool stop = false;
    bool posted = false;
  };
  BeforeSleep look_before_sleep();
  void drain_wake_fd();
  void drop_cancelled_timers();
  /// How long the loop may sleep: nullopt until an event, zero not at all.
  /// `posted`: tasks wait (look_before_sleep).
  std::optional<Clock::duration> next_timeout(bool posted);
  /// epoll with next_timeout(): to the nanosecond with epoll_pwait2 (a pacing
  /// deadline 200 us away is kept, not rounded up to a millisecond), in
  /// milliseconds rounded up with epoll_wait on a kernel without it (before 5.11).
  int wait_for_events(epoll_event* events, int capacity, bool posted);
  /// epoll without sleeping, until an event, a due timer, or kPollBeforeSleep has
  /// passed: the count of events, 0 when none came.
  int poll_briefly(epoll_event* events, int capacity, std::optional<Clock::duration> timeout);
  bool on_loop_thread_locked() const;

  const TimeSource& clock_;
  std::optional<Error> failure_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  TimePoint now_;
  bool precise_wait_ = true;        // epoll_pwait2 works here (false after ENOSYS)
  bool poll_before_sleep_ = false;  // HTTP thread: poll_briefly before the next sleep
  std::unordered_map<int, Watch> watchers_;
  std::uint32_t next_generation_ = 1;
  // A min-heap (std::push_heap with std::greater) so cancelled entries can be
  // compacted away; a cancelled id stays in the heap until popped or compacted.
  std::vector<Timer> timer_heap_;
  std::unordered_map<TimerId, Task> timer_tasks_;  // cancelled ids are erased
  std::vector<TimerId> due_;  // scratch of run_due_timers, kept to avoid allocation
  TimerId next_timer_id_ = 1;

  std::mutex posted_mu_;
  std::vector<Task> posted_;            // guarded by posted_mu_
  std::vector<Task> running_;           // HTTP thread: the batch run_posted() is running
  std::vector<Task> turn_end_;          // HTTP thread: at_turn_end tasks of this turn
  std::vector<Task> turn_end_running_;  // HTTP thread: the batch being run
#if SLUICE_TEST_HOOKS
  std::vector<std::pair<ObserverId, Task>> turn_observers_;  // HTTP thread
  ObserverId next_observer_id_ = 1;                          // HTTP thread
#endif
  bool stop_requested_ = false;  // guarded by posted_mu_
  bool wake_pending_ = false;    // guarded by posted_mu_: wake_fd_ already signalled
  // guarded by posted_mu_: the thread in run(), whose own posts need no eventfd
  // write (it runs them before it sleeps); default-constructed outside run()
  std::thread::id loop_thread_;
};

}  // namespace sluice
