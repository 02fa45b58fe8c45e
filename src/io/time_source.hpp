#pragma once
// TimeSource: where protocol code reads the time. The EventLoop is one (the time at
// the start of its turn); tests use a manual clock (tests/support/manual_clock.hpp),
// so a round trip of 50 ms or a quiet period runs without waiting.
// Ownership: an interface; implementations say their own thread rules.

#include <chrono>

namespace sluice {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual TimePoint now() const noexcept = 0;
};

}  // namespace sluice
