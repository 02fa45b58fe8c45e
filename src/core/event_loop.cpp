#include "core/event_loop.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

namespace sluice {
namespace {

// Events taken per epoll_wait; more ready fds simply wait for the next turn
// (level-triggered, so nothing is lost).
constexpr int kMaxEvents = 64;
// Rounds of turn-end tasks adding turn-end tasks before the loop moves on (the rest
// run next turn, which then does not sleep).
constexpr int kTurnEndRounds = 4;

// Generation 0 marks the wake eventfd; watches use generations from 1.
constexpr std::uint32_t kWakeGeneration = 0;

std::uint64_t pack(int fd, std::uint32_t generation) {
  return (std::uint64_t{generation} << 32) | static_cast<std::uint32_t>(fd);
}

Error fd_error(const char* action, int fd, int err) {
  return Error(ErrorCategory::io, std::string("event loop: cannot ") + action + " fd " +
                                      std::to_string(fd) + ": " + std::strerror(err));
}

}  // namespace

EventLoop::EventLoop(const TimeSource& clock) : clock_(clock), now_(clock.now()) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    failure_ = fd_error("create", -1, errno);
    return;
  }
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    failure_ = fd_error("create an eventfd for", epoll_fd_, errno);
    return;
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = pack(wake_fd_, kWakeGeneration);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &event) != 0) {
    failure_ = fd_error("watch", wake_fd_, errno);
  }
}

EventLoop::~EventLoop() {
  if (wake_fd_ >= 0) close(wake_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Result<void> EventLoop::status() const {
  if (failure_) return *failure_;
  return {};
}

void EventLoop::run() {
  if (failure_) return;  // the owner checked status() and reported it
  {
    std::lock_guard lock(posted_mu_);
    loop_thread_ = std::this_thread::get_id();
  }
  std::array<epoll_event, kMaxEvents> events;
  for (;;) {
    now_ = clock_.now();
    run_due_timers();
    run_posted();
    // A turn-end task may add another (run now, a few rounds at most); what one
    // posts waits for the next turn, after epoll and the timers, so a task that keeps
    // re-posting itself cannot starve them.
    for (int round = 0; round < kTurnEndRounds && run_turn_end(); ++round) {}
#if SLUICE_TEST_HOOKS
    for (auto& [id, observer] : turn_observers_) observer();
#endif
    const BeforeSleep look = look_before_sleep();
    if (look.stop) break;
    const int count = wait_for_events(events.data(), kMaxEvents, look.posted);
    // epoll_wait fails only for a bad epoll fd or argument: a bug, never a condition
    // the loop could survive, and there is nobody to return an error to.
    if (count < 0 && errno != EINTR) std::abort();
    now_ = clock_.now();
    for (int i = 0; i < count; ++i) dispatch(events[static_cast<std::size_t>(i)]);
  }
  run_remaining();
  std::lock_guard lock(posted_mu_);
  stop_requested_ = false;  // the loop may be run again
  loop_thread_ = {};
}

void EventLoop::run_remaining() {
  while (run_posted() || run_turn_end()) {}
}

void EventLoop::stop() {
  bool signal = false;
  {
    std::lock_guard lock(posted_mu_);
    stop_requested_ = true;
    signal = !wake_pending_;
    wake_pending_ = true;
  }
  if (signal) wake();
}

// An eventfd write fails only with EAGAIN, when its counter would overflow, and then
// the counter is far from zero: the loop wakes anyway. So the result needs no
// handling (tests/fault_injection shows what a failure here would cost: a wake
// lost until the next timer).
void EventLoop::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] auto written = write(wake_fd_, &one, sizeof one);
}

void EventLoop::post(Task task) {
  bool signal = false;
  {
    std::lock_guard lock(posted_mu_);
    posted_.push_back(std::move(task));
    // The loop's own thread is awake and runs posted tasks before it sleeps
    // (look_before_sleep): an eventfd write would only wake it for one more turn.
    if (on_loop_thread_locked()) return;
    signal = !wake_pending_;
    wake_pending_ = true;
  }
  // One write per sleep of the loop is enough; later posts find it pending.
  if (signal) wake();
}

bool EventLoop::on_loop_thread_locked() const { return loop_thread_ == std::this_thread::get_id(); }

void EventLoop::at_turn_end(Task task) { turn_end_.push_back(std::move(task)); }

#if SLUICE_TEST_HOOKS
EventLoop::ObserverId EventLoop::add_turn_observer(Task observer) {
  turn_observers_.emplace_back(next_observer_id_, std::move(observer));
  return next_observer_id_++;
}

void EventLoop::remove_turn_observer(ObserverId id) {
  std::erase_if(turn_observers_, [id](const auto& entry) { return entry.first == id; });
}
#endif

bool EventLoop::run_turn_end() {
  turn_end_running_.swap(turn_end_);
  for (auto& task : turn_end_running_) task();
  const bool ran = !turn_end_running_.empty();
  turn_end_running_.clear();
  return ran;
}

EventLoop::BeforeSleep EventLoop::look_before_sleep() {
  std::lock_guard lock(posted_mu_);
  return {stop_requested_, !posted_.empty()};
}

bool EventLoop::run_posted() {
  {
    std::lock_guard lock(posted_mu_);
    running_.swap(posted_);
    wake_pending_ = false;
  }
  // Tasks posted while these run land in posted_ and wake the next turn. The two
  // vectors trade places each turn, so steady posting allocates nothing.
  for (auto& task : running_) task();
  const bool ran = !running_.empty();
  running_.clear();
  return ran;
}

void EventLoop::drain_wake_fd() {
  std::uint64_t count = 0;
  [[maybe_unused]] auto got = read(wake_fd_, &count, sizeof count);
}

void EventLoop::dispatch(const epoll_event& event) {
  const auto generation = static_cast<std::uint32_t>(event.data.u64 >> 32);
  const auto fd = static_cast<int>(static_cast<std::uint32_t>(event.data.u64));
  if (generation == kWakeGeneration) {
    drain_wake_fd();
    return;
  }
  // Looked up afresh for every event: an earlier callback in this batch may have
  // unwatched this fd (and deleted its watcher), or closed it and watched a new
  // socket that got the same number.
  const auto it = watchers_.find(fd);
  if (it == watchers_.end() || it->second.generation != generation) return;
  it->second.watcher->on_fd_ready(event.events);
}

Result<void> EventLoop::watch(int fd, std::uint32_t events, FdWatcher* watcher) {
  if (watchers_.count(fd) != 0) return fd_error("watch", fd, EEXIST);
  const std::uint32_t generation = next_generation_++;
  if (next_generation_ == kWakeGeneration) next_generation_ = 1;
  epoll_event event{};
  event.events = events;
  event.data.u64 = pack(fd, generation);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) return fd_error("watch", fd, errno);
  watchers_.emplace(fd, Watch{watcher, generation});
  return {};
}

Result<void> EventLoop::modify(int fd, std::uint32_t events) {
  const auto it = watchers_.find(fd);
  if (it == watchers_.end()) return fd_error("modify unwatched", fd, ENOENT);
  epoll_event event{};
  event.events = events;
  event.data.u64 = pack(fd, it->second.generation);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event) != 0) return fd_error("modify", fd, errno);
  return {};
}

void EventLoop::unwatch(int fd) {
  if (watchers_.erase(fd) == 0) return;
  // Fails harmlessly (EBADF) when the owner closed the fd first: the kernel has
  // already dropped it from the epoll set.
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

EventLoop::TimerId EventLoop::add_timer(TimePoint when, Task task) {
  const TimerId id = next_timer_id_++;
  timer_tasks_.emplace(id, std::move(task));
  timer_heap_.push_back(Timer{when, id});
  std::push_heap(timer_heap_.begin(), timer_heap_.end(), std::greater<>{});
  return id;
}

void EventLoop::cancel_timer(TimerId id) {
  if (timer_tasks_.erase(id) == 0) return;
  // Idle and request timeouts are re-armed far more often than they fire; without
  // compaction their cancelled entries would pile up until their deadlines pass.
  const std::size_t cancelled = timer_heap_.size() - timer_tasks_.size();
  if (cancelled <= 64 || cancelled <= timer_tasks_.size()) return;
  std::erase_if(timer_heap_, [this](const Timer& t) { return timer_tasks_.count(t.id) == 0; });
  std::make_heap(timer_heap_.begin(), timer_heap_.end(), std::greater<>{});
}

void EventLoop::run_due_timers() {
  // Collect first, run after: a task may add timers (they wait for the next turn,
  // so a timer that re-arms itself at now() cannot starve the loop) or cancel ones
  // collected here (looked up again just before running).
  due_.clear();
  while (!timer_heap_.empty() && timer_heap_.front().when <= now_) {
    std::pop_heap(timer_heap_.begin(), timer_heap_.end(), std::greater<>{});
    const TimerId id = timer_heap_.back().id;
    timer_heap_.pop_back();
    if (timer_tasks_.count(id) != 0) due_.push_back(id);
  }
  for (std::size_t i = 0; i < due_.size(); ++i) {
    const auto it = timer_tasks_.find(due_[i]);
    if (it == timer_tasks_.end()) continue;
    Task task = std::move(it->second);
    timer_tasks_.erase(it);
    task();
  }
}

void EventLoop::drop_cancelled_timers() {
  while (!timer_heap_.empty() && timer_tasks_.count(timer_heap_.front().id) == 0) {
    std::pop_heap(timer_heap_.begin(), timer_heap_.end(), std::greater<>{});
    timer_heap_.pop_back();
  }
}

std::optional<Clock::duration> EventLoop::next_timeout(bool posted) {
  if (!turn_end_.empty() || posted) return Clock::duration::zero();
  drop_cancelled_timers();
  if (timer_heap_.empty()) return std::nullopt;
  const auto left = timer_heap_.front().when - clock_.now();
  // A manual clock moves only when its test moves it (and posts to wake the loop):
  // sleeping until its time would wait for real time that never comes.
  if (!clock_.passes_by_itself()) {
    if (left <= Clock::duration::zero()) return Clock::duration::zero();
    return std::nullopt;
  }
  return std::max(left, Clock::duration::zero());
}

int EventLoop::wait_for_events(epoll_event* events, int capacity, bool posted) {
  // A day at most: any longer sleep ends with a timer that moved or an event anyway.
  constexpr Clock::duration kLongest = std::chrono::hours(24);
  std::optional<Clock::duration> timeout = next_timeout(posted);
  // Kept through turns that do not sleep: the spin is for the sleep.
  if (poll_before_sleep_ && timeout != Clock::duration::zero() && clock_.passes_by_itself()) {
    poll_before_sleep_ = false;
    if (const int count = poll_briefly(events, capacity, timeout); count != 0) return count;
    // The poll took some of it. Only other threads could post meanwhile, and their
    // posts wake the loop through the eventfd.
    timeout = next_timeout(posted);
  }
  const std::optional<Clock::duration> left =
      timeout ? std::optional(std::min(*timeout, kLongest)) : std::nullopt;
  if (precise_wait_) {
    timespec until{};
    if (left) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(*left).count();
      until.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
      until.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    }
    const int count = epoll_pwait2(epoll_fd_, events, capacity, left ? &until : nullptr, nullptr);
    if (count >= 0 || errno != ENOSYS) return count;
    precise_wait_ = false;  // a kernel before 5.11
  }
  // Rounded up: waking a fraction of a millisecond early would spin a turn for
  // nothing.
  const int ms =
      left ? static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*left).count()) : -1;
  return epoll_wait(epoll_fd_, events, capacity, ms);
}

// Bounded by the real clock whatever the loop's clock is: the poll is a cost in real
// time, and a test's clock frozen mid-poll would otherwise never let it end.
int EventLoop::poll_briefly(epoll_event* events, int capacity,
                            std::optional<Clock::duration> timeout) {
  const SteadyClock& real = SteadyClock::instance();
  const TimePoint start = real.now();
  const Clock::duration limit =
      timeout ? std::min<Clock::duration>(*timeout, kPollBeforeSleep) : kPollBeforeSleep;
  do {
    const int count = epoll_wait(epoll_fd_, events, capacity, 0);
    if (count != 0) return count;
  } while (real.now() - start < limit);
  return 0;
}

}  // namespace sluice
