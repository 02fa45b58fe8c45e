#pragma once
// RttEstimate: round-trip time samples of one connection, reduced to the two
// figures the window policy and tracing use. HTTP/2 feeds it from PING and SETTINGS
// acknowledgements; QUIC has its own estimator (ngtcp2's) and reports through the
// same type.
// Ownership: a plain value; owned by a session, HTTP thread only.

#include <chrono>
#include <cstddef>

namespace sluice {

class RttEstimate {
 public:
  using Duration = std::chrono::nanoseconds;

  /// One sample: the time between sending a frame that the peer answers at once and
  /// its answer.
  void add(Duration sample) noexcept {
    if (sample < Duration::zero()) return;
    if (samples_ == 0 || sample < min_) min_ = sample;
    // RFC 6298's smoothing (1/8 of each new sample).
    smoothed_ = samples_ == 0 ? sample : smoothed_ + (sample - smoothed_) / 8;
    latest_ = sample;
    ++samples_;
  }
  bool known() const noexcept { return samples_ > 0; }
  /// The smallest sample: the path's delay without the queues a busy peer or link
  /// adds. The window policy uses it, so a queue that grows with the window never
  /// argues for a larger window. Zero while unknown.
  Duration min() const noexcept { return min_; }
  Duration smoothed() const noexcept { return smoothed_; }
  Duration latest() const noexcept { return latest_; }
  std::size_t samples() const noexcept { return samples_; }

  /// An estimate made elsewhere (ngtcp2's), as one value.
  static RttEstimate of(Duration min, Duration smoothed) noexcept {
    RttEstimate estimate;
    estimate.min_ = min;
    estimate.smoothed_ = smoothed;
    estimate.latest_ = smoothed;
    estimate.samples_ = 1;
    return estimate;
  }

 private:
  Duration min_{};
  Duration smoothed_{};
  Duration latest_{};
  std::size_t samples_ = 0;
};

}  // namespace sluice
