#pragma once
// ngtcp2's clock is nanoseconds of a monotonic clock; the EventLoop's time points are
// std::chrono::steady_clock's (from its injected clock). These convert between the
// two (same epoch); the time itself always comes from the loop.
// Pure functions; any thread.

#include <ngtcp2/ngtcp2.h>

#include <chrono>

#include "core/event_loop.hpp"

namespace sluice {

/// A loop time point as an ngtcp2 timestamp.
inline ngtcp2_tstamp quic_timestamp_of(TimePoint when) noexcept {
  return static_cast<ngtcp2_tstamp>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count());
}

/// An ngtcp2 timestamp (not UINT64_MAX) as a loop time point.
inline TimePoint quic_time_point(ngtcp2_tstamp ts) noexcept {
  return TimePoint(std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(static_cast<std::int64_t>(ts))));
}

/// A duration in ngtcp2's unit; 0 stays 0.
inline ngtcp2_duration quic_duration(std::chrono::milliseconds duration) noexcept {
  return duration.count() <= 0
             ? 0
             : static_cast<ngtcp2_duration>(duration.count()) * NGTCP2_MILLISECONDS;
}

}  // namespace sluice
