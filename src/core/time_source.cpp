// The one place under src/ that reads the system's monotonic clock (see
// time_source.hpp). Any thread.

#include "core/time_source.hpp"

namespace sluice {

TimePoint SteadyClock::now() const noexcept { return Clock::now(); }

const SteadyClock& SteadyClock::instance() noexcept {
  static const SteadyClock clock;
  return clock;
}

TimePoint steady_now() noexcept { return Clock::now(); }

}  // namespace sluice
