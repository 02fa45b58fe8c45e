#pragma once
// WaiterQueue: the requests an origin's connections are awaited for, in order. The
// pool holds them by pointer, so each waiter must leave the queue (attached, failed
// or withdrawn) before it is destroyed: the queue marks each waiter it holds, and a
// waiter destroyed while marked stops a debug build at the mistake
// (ConnectionWaiter's destructor) instead of leaving the pool a dangling pointer.
// Ownership: a member of its origin in the ConnectionPool; HTTP thread only.

#include <cstddef>
#include <deque>
#include <utility>

#include "pool/connection_waiter.hpp"

namespace sluice {

class WaiterQueue {
 public:
  WaiterQueue() = default;
  WaiterQueue(const WaiterQueue&) = delete;
  WaiterQueue& operator=(const WaiterQueue&) = delete;
  WaiterQueue(WaiterQueue&& other) noexcept : waiters_(std::exchange(other.waiters_, {})) {}
  WaiterQueue& operator=(WaiterQueue&&) = delete;
  ~WaiterQueue() { release_all(); }

  void push(ConnectionWaiter& waiter) {
    waiter.queued_ = true;
    waiters_.push_back(&waiter);
  }
  /// The first waiter, out of the queue: its wait ends with the caller's attach or fail.
  ConnectionWaiter& take_front() {
    ConnectionWaiter& waiter = *waiters_.front();
    waiters_.pop_front();
    waiter.queued_ = false;
    return waiter;
  }
  /// Every waiter, out of the queue, in order.
  std::deque<ConnectionWaiter*> take_all() {
    std::deque<ConnectionWaiter*> taken = std::exchange(waiters_, {});
    for (ConnectionWaiter* waiter : taken) waiter->queued_ = false;
    return taken;
  }
  /// The waiter gave up (withdraw): nothing more is said to it.
  void remove(ConnectionWaiter& waiter) {
    std::erase(waiters_, &waiter);
    waiter.queued_ = false;
  }
  /// The pool shuts down: its owner ends every request itself.
  void release_all() { take_all(); }

  bool empty() const noexcept { return waiters_.empty(); }
  std::size_t size() const noexcept { return waiters_.size(); }
  const ConnectionWaiter& front() const { return *waiters_.front(); }
  const ConnectionWaiter& operator[](std::size_t i) const { return *waiters_[i]; }

 private:
  std::deque<ConnectionWaiter*> waiters_;
};

}  // namespace sluice
