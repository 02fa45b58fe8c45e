#pragma once
// Time, injected. Protocol code, sessions and the event loop read the time from a
// TimeSource they are given: the EventLoop passes on its own (the real clock in a
// Client, a test's manual clock in unit tests, tests/support/manual_clock.hpp), so a
// round trip of 50 ms, an idle timeout or the 4 s sweep runs in no time in a test.
// SteadyClock (time_source.cpp) is the only place under src/ that reads the system's
// monotonic clock.
// Ownership: an interface; implementations say their own thread rules.

#include <chrono>

namespace sluice {

using Clock = std::chrono::steady_clock;  ///< the type of every time point
using TimePoint = Clock::time_point;

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual TimePoint now() const noexcept = 0;
  /// Whether time passes by itself. An event loop on a clock that does not (a
  /// test's manual clock) fires timers only when the clock was moved and the loop
  /// woken, and otherwise sleeps until an event or a post.
  virtual bool passes_by_itself() const noexcept { return true; }
};

/// The system's monotonic clock. Any thread.
class SteadyClock final : public TimeSource {
 public:
  TimePoint now() const noexcept override;
  static const SteadyClock& instance() noexcept;
};

/// SteadyClock's time, for what is real time by definition: a consumer thread's
/// deadline (a read that waits at most this long), a download's elapsed seconds.
/// Any thread.
TimePoint steady_now() noexcept;

}  // namespace sluice
