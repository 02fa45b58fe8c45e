#include "body/source_queue.hpp"

#include <algorithm>
#include <utility>

namespace sluice {

Result<bool> SourceQueue::write(std::span<const std::byte> bytes,
                                std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock lock(mu_);
  auto ready = [this] { return queue_.size() < mark_ || shut_ || closed_ || aborted_; };
  if (deadline) {
    if (!writable_.wait_until(lock, *deadline, ready)) return false;
  } else {
    writable_.wait(lock, ready);
  }
  if (shut_) return *shut_;
  if (closed_ || aborted_) {
    return Error(ErrorCategory::usage, "request body: write after close()");
  }
  queue_.append(bytes);
  wake_consumer_locked(lock);
  return true;
}

void SourceQueue::close() {
  std::unique_lock lock(mu_);
  closed_ = true;
  wake_consumer_locked(lock);
}

void SourceQueue::abort(std::string reason) {
  std::unique_lock lock(mu_);
  aborted_ = std::move(reason);
  wake_consumer_locked(lock);
}

void SourceQueue::wake_consumer_locked(std::unique_lock<std::mutex>& lock) {
  if (!consumer_waiting_ || !consumer_waker_) return;
  consumer_waiting_ = false;
  auto wake = consumer_waker_;
  lock.unlock();
  wake();
  lock.lock();
}

std::size_t SourceQueue::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void SourceQueue::when_writable(std::function<void()> ready) {
  std::unique_lock lock(mu_);
  if (queue_.size() < mark_ && (post_ || run_user_)) {
    auto post = run_user_ ? run_user_ : post_;
    lock.unlock();
    post(std::move(ready));
    return;
  }
  writable_callback_ = std::move(ready);
}

SourceQueue::Taken SourceQueue::take(ByteQueue& out, std::size_t max) {
  std::unique_lock lock(mu_);
  Taken taken;
  if (aborted_) {
    taken.error =
        Error(ErrorCategory::cancelled, "request body aborted by the producer: " + *aborted_);
    return taken;
  }
  const std::size_t n = std::min(max, queue_.size());
  if (n > 0) {
    out.append(queue_.readable().first(n));
    queue_.consume(n);
  }
  taken.bytes = n;
  taken.closed = closed_ && queue_.empty();
  if (n == 0 && !taken.closed) consumer_waiting_ = true;
  const bool below = queue_.size() < mark_;
  std::function<void()> callback;
  if (below && writable_callback_) callback = std::exchange(writable_callback_, nullptr);
  auto run_user = callback && run_user_ ? run_user_ : nullptr;
  lock.unlock();
  if (below) writable_.notify_all();
  if (run_user) {
    run_user(std::move(callback));
  } else if (callback) {
    callback();  // already on the HTTP thread
  }
  return taken;
}

void SourceQueue::set_consumer_waker(std::function<void()> wake) {
  std::lock_guard lock(mu_);
  consumer_waker_ = std::move(wake);
}

void SourceQueue::set_poster(std::function<void(std::function<void()>)> post) {
  std::lock_guard lock(mu_);
  post_ = std::move(post);
}

void SourceQueue::set_user_runner(std::function<void(std::function<void()>)> run) {
  std::lock_guard lock(mu_);
  run_user_ = std::move(run);
}

void SourceQueue::shut(Error reason) {
  std::function<void()> waiting;
  std::function<void(std::function<void()>)> run_user;
  {
    std::lock_guard lock(mu_);
    if (!shut_) shut_ = std::move(reason);
    consumer_waker_ = nullptr;
    waiting = std::exchange(writable_callback_, nullptr);
    run_user = run_user_;
    queue_.clear();
    queue_.release_if_empty();
  }
  writable_.notify_all();
  // A producer waiting for room must hear that none will come: its callback runs, and
  // the write it then makes fails and says why. Dropped, it would wait forever (a
  // binding's upload pump, a promise nobody settles).
  if (!waiting) return;
  if (run_user) {
    run_user(std::move(waiting));
  } else {
    waiting();  // shut runs on the HTTP thread, where `ready` is promised to run
  }
}

}  // namespace sluice
