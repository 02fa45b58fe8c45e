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
    auto taken = [this] { return taken_.load(std::memory_order_relaxed); };
    for (std::uint64_t seen = taken();; seen = taken()) {
      room_.wait_for(lock, stall_window_, [&] { return fits() || window_cut_; });
      if (fits()) break;
      window_cut_ = false;
      ++windows_ended_;
      if (taken() == seen) break;  // nothing moved: waiting on could wait forever
    }
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

// No lock: the HTTP thread calls this for every chunk a transport takes, and only a
// waiting acquire reads the count, once per kUploadStall.
void UploadBudget::note_taken(std::size_t bytes) {
  taken_.fetch_add(bytes, std::memory_order_relaxed);
}

std::size_t UploadBudget::held() const {
  std::lock_guard lock(mu_);
  return held_;
}

std::uint64_t UploadBudget::waits() const {
  std::lock_guard lock(mu_);
  return waits_;
}

#if SLUICE_TEST_HOOKS
void UploadBudget::set_stall_window(std::chrono::milliseconds window) {
  std::lock_guard lock(mu_);
  stall_window_ = window;
}

void UploadBudget::end_stall_window() {
  {
    std::lock_guard lock(mu_);
    window_cut_ = true;
  }
  room_.notify_all();
}

std::uint64_t UploadBudget::stall_windows_ended() const {
  std::lock_guard lock(mu_);
  return windows_ended_;
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
