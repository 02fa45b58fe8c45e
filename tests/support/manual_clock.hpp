#pragma once
// ManualClock: a TimeSource that moves only when the test says, so a round trip of
// 50 ms, a quiet period or a timeout runs in no time and always the same way.
// Ownership: test thread only.

#include <chrono>

#include "io/time_source.hpp"

namespace sluice::test {

class ManualClock final : public TimeSource {
 public:
  /// Starts at an arbitrary fixed point (not the epoch: code may subtract from now).
  ManualClock() : now_(TimePoint(std::chrono::hours(1))) {}
  TimePoint now() const noexcept override { return now_; }
  void advance(std::chrono::nanoseconds by) {
    now_ += std::chrono::duration_cast<TimePoint::duration>(by);
  }

 private:
  TimePoint now_;
};

}  // namespace sluice::test
