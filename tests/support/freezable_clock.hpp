#pragma once
// FreezableClock: a TimeSource that runs with the system's monotonic clock until the
// test freezes it at an event it waited for (a body paused at its mark); from then on
// it moves only as the test says, like a ManualClock, until thawed. For tests that need
// time to pass by itself to get there (QUIC paces its packets and will not complete a
// handshake on a clock that stands still) and a manual clock for what they check
// afterwards: a hold, an idle check, a sweep.
// An EventLoop on it sleeps until its next timer while it runs, and only until an event
// or a post while frozen (passes_by_itself()); a timer it was sleeping towards when the
// clock froze fires when the test moves the clock past it. thaw() takes effect for a
// sleeping loop at its next wake-up: post to it (settle()) after thawing.
// Thread-safety: any thread; the time is read and changed under one mutex, so it never
// runs backwards, even across a freeze or a thaw.

#include <chrono>
#include <mutex>

#include "core/time_source.hpp"

namespace sluice::test {

class FreezableClock final : public TimeSource {
 public:
  TimePoint now() const noexcept override {
    std::lock_guard lock(mu_);
    return now_locked();
  }
  bool passes_by_itself() const noexcept override {
    std::lock_guard lock(mu_);
    return !frozen_;
  }
  bool frozen() const {
    std::lock_guard lock(mu_);
    return frozen_;
  }
  /// Stops the clock at the time now. Idempotent.
  void freeze() {
    std::lock_guard lock(mu_);
    if (frozen_) return;
    frozen_at_ = now_locked();
    frozen_ = true;
  }
  /// Frozen: moves the clock forward by `by`. Running: does nothing (it passes anyway).
  void advance(std::chrono::nanoseconds by) {
    std::lock_guard lock(mu_);
    if (frozen_) frozen_at_ += std::chrono::duration_cast<Clock::duration>(by);
  }
  /// Runs on from where it stood, with the system's clock. Idempotent.
  void thaw() {
    std::lock_guard lock(mu_);
    if (!frozen_) return;
    offset_ = frozen_at_ - steady_now();
    frozen_ = false;
  }

 private:
  TimePoint now_locked() const noexcept { return frozen_ ? frozen_at_ : steady_now() + offset_; }

  mutable std::mutex mu_;
  bool frozen_ = false;       // guarded by mu_
  TimePoint frozen_at_{};     // guarded by mu_: the time while frozen
  Clock::duration offset_{};  // guarded by mu_: added to the system's time while running
};

}  // namespace sluice::test
