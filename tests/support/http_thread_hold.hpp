#pragma once
// HttpThreadHold: keeps a Client's HTTP thread busy in a task of its own until
// released, so that a test can make things happen on other threads (a read, a drop,
// a cancel) that the HTTP thread must only hear of afterwards, all at once. The task
// is posted straight to the HTTP thread: a then() callback would not do, as it runs on
// the caller's thread when its response was already decided.
// Ownership: the test thread's; release() (or the destructor) lets the thread go.

#include <chrono>
#include <future>
#include <memory>

#include "sluice/client.hpp"

namespace sluice::test {

class HttpThreadHold {
 public:
  /// Posts the holding task; held() says whether it started.
  explicit HttpThreadHold(Client& client);
  ~HttpThreadHold() { release(); }
  HttpThreadHold(const HttpThreadHold&) = delete;
  HttpThreadHold& operator=(const HttpThreadHold&) = delete;

  /// Waits (up to `deadline`) until the HTTP thread runs the task.
  bool held(std::chrono::milliseconds deadline = std::chrono::seconds(30));
  /// Idempotent.
  void release();

 private:
  // Shared with the task, which may run after this object is gone.
  struct Gates {
    std::promise<void> entered;
    std::promise<void> release;
  };
  std::shared_ptr<Gates> gates_ = std::make_shared<Gates>();
  std::future<void> entered_ = gates_->entered.get_future();
  bool released_ = false;
};

}  // namespace sluice::test
