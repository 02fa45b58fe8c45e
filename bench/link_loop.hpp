#pragma once
// LinkLoop: the event loop under a delay link. An epoll set of sockets, waited on
// with epoll_pwait2 until the next due time (nanosecond timeouts, where epoll_wait
// counts whole milliseconds), and an eventfd that stop() writes. The link's thread
// calls wait() in a loop, handles what is ready, flushes what is due and passes the
// next due time to the following wait().
//
// Under load, passes are at least kMinPass (200 us) apart, so a stream arriving in
// small pieces is read and written in large ones: measured on 2 cores, one wake-up
// per arriving TLS record (about 12 KiB) cost the link twice the CPU and the end
// points a third of their throughput. So a byte may wait up to kMinPass more than
// its due time (0.4% of a 50 ms round trip); an idle link wakes at once.
//
// Ownership: owned by one link. wait(), watch() and unwatch() on the link's thread
// only; stop() and stopping() from any thread.

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bench/link_queue.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

/// Best effort: gives the calling thread real-time priority (SCHED_FIFO 1) where the
/// process may (root, CAP_SYS_NICE). A link stands for the network, which does not
/// wait for the end points' CPU: on a small machine with a busy client and server,
/// an ordinary thread is woken up to a scheduler slice (milliseconds) after a due
/// time, and what piled up then leaves as one burst. The thread blocks in epoll
/// whenever nothing is due, so it never holds a core for long.
void prefer_link_thread();

class LinkLoop {
 public:
  static constexpr std::chrono::microseconds kMinPass{200};

  /// One ready socket: the tag given to watch() and the epoll events.
  struct Ready {
    void* tag = nullptr;
    std::uint32_t events = 0;
  };

  static Result<std::unique_ptr<LinkLoop>> create();
  ~LinkLoop();
  LinkLoop(const LinkLoop&) = delete;
  LinkLoop& operator=(const LinkLoop&) = delete;

  /// Sets the events `fd` is watched for (EPOLLIN, EPOLLOUT), reported with `tag`;
  /// 0 removes it from the set. Fails only when the kernel refuses (out of memory).
  Result<void> watch(int fd, std::uint32_t events, void* tag);
  /// Removes `fd` from the set. Call it before closing a socket: a descriptor that a
  /// fork()ed child still holds stays in the epoll set after close(), and would report
  /// events with a tag that no longer exists.
  void unwatch(int fd);

  /// Waits until a watched socket is ready, `deadline` passes or stop() is called.
  /// The span is valid until the next wait(); it is empty on a deadline or a stop.
  std::span<const Ready> wait(std::optional<LinkTime> deadline);

  /// Makes the current or next wait() return, and stopping() true. Any thread.
  void stop();
  bool stopping() const noexcept { return stopping_.load(); }

 private:
  LinkLoop(int epoll_fd, int wake_fd);
  int wait_until(std::optional<LinkTime> deadline);

  int epoll_fd_;
  int wake_fd_;
  LinkTime last_pass_{};  // when the last wait returned; link thread only
  std::vector<epoll_event> events_ = std::vector<epoll_event>(256);
  std::vector<Ready> ready_;
  std::atomic<bool> stopping_{false};
};

}  // namespace sluice::bench
