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
#include <queue>
#include <unordered_map>
#include <vector>

#include "sluice/error.hpp"

namespace sluice {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

/// Receives readiness for one file descriptor. Fires on the HTTP thread from run();
/// it may call any EventLoop method, including unwatch() of its own fd and deleting
/// itself after unwatching.
class FdWatcher {
 public:
  virtual ~FdWatcher() = default;
  /// `events` is the EPOLLIN/EPOLLOUT/EPOLLERR/EPOLLHUP mask epoll reported.
  virtual void on_fd_ready(std::uint32_t events) = 0;
};

class EventLoop {
 public:
  using TimerId = std::uint64_t;
  using Task = std::function<void()>;

  EventLoop();  // aborts with a message if epoll/eventfd cannot be created
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Runs until stop(); then runs the posted tasks that remain and returns.
  void run();
  /// Any thread. run() returns soon after.
  void stop();
  /// Any thread. `task` runs on the HTTP thread, in posting order.
  void post(Task task);

  /// Registers `fd` for `events` (EPOLLIN | EPOLLOUT ...); level-triggered.
  Result<void> watch(int fd, std::uint32_t events, FdWatcher* watcher);
  Result<void> modify(int fd, std::uint32_t events);
  /// Forgets `fd`; no further on_fd_ready for it, even in the current batch.
  void unwatch(int fd);

  /// Runs `task` once at `when` (or at the next turn if it has passed).
  TimerId add_timer(TimePoint when, Task task);
  /// Cancels a pending timer; a no-op for a fired or unknown id.
  void cancel_timer(TimerId id);

  /// The time at the start of this turn of the loop (cheap; no syscall).
  TimePoint now() const noexcept { return now_; }

 private:
  struct Timer {
    TimePoint when;
    TimerId id;
    bool operator>(const Timer& other) const {
      return when != other.when ? when > other.when : id > other.id;
    }
  };
  void run_due_timers();
  void run_posted();
  int next_timeout_ms() const;

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  bool stopping_ = false;  // HTTP thread
  TimePoint now_;
  std::unordered_map<int, FdWatcher*> watchers_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timer_heap_;
  std::unordered_map<TimerId, Task> timer_tasks_;  // cancelled ids are erased
  TimerId next_timer_id_ = 1;

  std::mutex posted_mu_;
  std::vector<Task> posted_;  // guarded by posted_mu_
  bool stop_requested_ = false;  // guarded by posted_mu_
};

}  // namespace sluice
