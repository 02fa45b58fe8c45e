#pragma once
// ManualClock: a TimeSource that moves only when the test says, so a round trip of
// 50 ms, a quiet period or a timeout runs in no time and always the same way. An
// EventLoop built on it fires timers only as the test moves the clock and wakes the
// loop (advance(by, loop) does both).
// Thread-safety: any thread (the time is one atomic); an EventLoop may read it on its
// thread while the test moves it on another.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/event_loop.hpp"
#include "core/time_source.hpp"

namespace sluice::test {

class ManualClock final : public TimeSource {
 public:
  /// Starts at an arbitrary fixed point (not the epoch: code may subtract from now).
  ManualClock()
      : ticks_(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::hours(1)).count()) {}
  TimePoint now() const noexcept override {
    return TimePoint(std::chrono::duration_cast<TimePoint::duration>(
        std::chrono::nanoseconds(ticks_.load(std::memory_order_acquire))));
  }
  bool passes_by_itself() const noexcept override { return false; }
  void advance(std::chrono::nanoseconds by) {
    ticks_.fetch_add(by.count(), std::memory_order_acq_rel);
  }
  /// Moves the clock and wakes `loop` (running on another thread) so that it fires
  /// the timers now due.
  void advance(std::chrono::nanoseconds by, EventLoop& loop) {
    advance(by);
    loop.post([] {});
  }

 private:
  std::atomic<std::int64_t> ticks_;  // nanoseconds since the clock's epoch
};

}  // namespace sluice::test
