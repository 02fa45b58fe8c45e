// UploadBudget: the owned request bodies a Client holds before transports take them
// (see upload_budget.hpp).
// Thread-safety: any thread; guarded by mu_.

#include "body/upload_budget.hpp"

#include <utility>

namespace sluice {

void UploadBudget::acquire(std::size_t bytes, bool may_wait) {
  std::unique_lock lock(mu_);
  auto fits = [&] { return limit_ == 0 || held_ == 0 || held_ + bytes <= limit_; };
  if (may_wait && !fits()) {
    ++waits_;
    ++waiting_;
    const bool start_watch = !watched_ && watch_;
    if (start_watch) {
      watched_ = true;
      taken_at_check_ = taken_.load(std::memory_order_relaxed);
    }
    const std::uint64_t stalls_before = stalls_;
    if (start_watch) {
      // The watch posts to the HTTP thread, which takes mu_ in check_stall().
      lock.unlock();
      watch_();
      lock.lock();
    }
    room_.wait(lock, [&] { return fits() || stalls_ != stalls_before; });
    --waiting_;
  }
  held_ += bytes;
}

void UploadBudget::release(std::size_t bytes) {
  {
    std::lock_guard lock(mu_);
    held_ -= bytes < held_ ? bytes : held_;
  }
  room_.notify_all();
}

// No lock: the HTTP thread calls this for every chunk a transport takes, and only
// check_stall() reads the count, once per stall window.
void UploadBudget::note_taken(std::size_t bytes) {
  taken_.fetch_add(bytes, std::memory_order_relaxed);
}

bool UploadBudget::check_stall() {
  {
    std::lock_guard lock(mu_);
    if (waiting_ == 0) {
      watched_ = false;
      return false;
    }
    const std::uint64_t taken = taken_.load(std::memory_order_relaxed);
    const bool still = taken == taken_at_check_;
    taken_at_check_ = taken;
    if (!still) return true;
    ++stalls_;
  }
  room_.notify_all();
  return true;
}

std::chrono::milliseconds UploadBudget::stall_window() const {
  std::lock_guard lock(mu_);
  return stall_window_;
}

std::size_t UploadBudget::held() const {
  std::lock_guard lock(mu_);
  return held_;
}

std::uint64_t UploadBudget::waits() const {
  std::lock_guard lock(mu_);
  return waits_;
}

std::uint64_t UploadBudget::stalls() const {
  std::lock_guard lock(mu_);
  return stalls_;
}

#if SLUICE_TEST_HOOKS
void UploadBudget::set_stall_window(std::chrono::milliseconds window) {
  std::lock_guard lock(mu_);
  stall_window_ = window;
}
#endif

UploadShare& UploadShare::operator=(UploadShare&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::move(other.budget_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void UploadShare::release() noexcept {
  if (budget_ && bytes_ > 0) budget_->release(bytes_);
  bytes_ = 0;
  budget_.reset();
}

}  // namespace sluice
