// LinkLoop: epoll_pwait2 + eventfd for a delay link's thread.

#include "bench/link_loop.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "bench/link_socket.hpp"

namespace sluice::bench {
namespace {

// The tag of the loop's eventfd; a socket's tag is its owner's pointer, never this
// address.
char wake_tag;

// steady_clock counts CLOCK_MONOTONIC's time (libstdc++ on Linux).
timespec monotonic_timespec(LinkTime time) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

void close_all(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace

void prefer_link_thread() {
  sched_param param{};
  param.sched_priority = 1;
  // Refused without the privilege: the link then runs at normal priority, later.
  ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param);
}

Result<std::unique_ptr<LinkLoop>> LinkLoop::create() {
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  const int wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd < 0 || wake_fd < 0) {
    Error error = link_error("cannot create its epoll set or eventfd");
    close_all({epoll_fd, wake_fd});
    return error;
  }
  std::unique_ptr<LinkLoop> loop(new LinkLoop(epoll_fd, wake_fd));
  if (Result<void> ok = loop->watch(wake_fd, EPOLLIN, &wake_tag); !ok) return std::move(ok).error();
  return loop;
}

LinkLoop::LinkLoop(int epoll_fd, int wake_fd) : epoll_fd_(epoll_fd), wake_fd_(wake_fd) {}

LinkLoop::~LinkLoop() { close_all({epoll_fd_, wake_fd_}); }

Result<void> LinkLoop::watch(int fd, std::uint32_t events, void* tag) {
  if (events == 0) {
    unwatch(fd);
    return {};
  }
  epoll_event event{};
  event.events = events;
  event.data.ptr = tag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event) == 0) return {};
  if (errno == ENOENT && ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) == 0) return {};
  return link_error("cannot watch a socket");
}

void LinkLoop::unwatch(int fd) {
  // ENOENT (not watched) is fine: callers unwatch whatever they are about to close.
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

std::span<const LinkLoop::Ready> LinkLoop::wait(std::optional<LinkTime> deadline) {
  ready_.clear();
  if (stopping()) return ready_;
  // Under load, passes are kMinPass apart: what arrives meanwhile is read in one
  // go, rather than one small read and one small write per wake-up.
  const LinkTime resume = last_pass_ + kMinPass;
  if (std::chrono::steady_clock::now() < resume) {
    const timespec until = monotonic_timespec(resume);
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
  }
  const int n = wait_until(deadline);
  last_pass_ = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const epoll_event& event = events_[static_cast<std::size_t>(i)];
    if (event.data.ptr != &wake_tag) ready_.push_back(Ready{event.data.ptr, event.events});
  }
  return ready_;
}

// epoll_pwait2 takes its timeout in nanoseconds; epoll_wait's whole milliseconds
// would make a 0.3 ms wait 1 ms.
int LinkLoop::wait_until(std::optional<LinkTime> deadline) {
  timespec timeout{};
  if (deadline) {
    const auto left = std::max(*deadline - std::chrono::steady_clock::now(),
                               std::chrono::steady_clock::duration::zero());
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timeout =
        timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  }
  const int n = ::epoll_pwait2(epoll_fd_, events_.data(), static_cast<int>(events_.size()),
                               deadline ? &timeout : nullptr, nullptr);
  return n < 0 ? 0 : n;  // EINTR: as if the deadline passed; the caller looks again
}

void LinkLoop::stop() {
  stopping_.store(true);
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t wrote = ::write(wake_fd_, &one, sizeof one);
}

}  // namespace sluice::bench
