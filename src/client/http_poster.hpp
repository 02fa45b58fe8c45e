#pragma once
// HttpPoster: posts tasks to a Client's HTTP thread from any thread, and refuses once
// the Client is shutting down. Shared by everything that may outlive its Client (body
// readers, pending responses).
// Thread-safety: any thread; mu_ guards the loop pointer, which close() clears.

#include <mutex>

#include "core/event_loop.hpp"

namespace sluice {

class HttpPoster {
 public:
  explicit HttpPoster(EventLoop& loop) : loop_(&loop) {}
  /// False when the HTTP thread is gone; the task is then dropped.
  bool post(EventLoop::Task task);
  void close();

 private:
  std::mutex mu_;
  EventLoop* loop_;  // guarded by mu_; null after close()
};

}  // namespace sluice
