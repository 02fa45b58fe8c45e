#pragma once
// RttEstimate: round-trip time samples of one HTTP/2 connection, reduced to the
// figures the window policy and tracing use (the smallest and the latest). H2Session
// feeds it from PING and SETTINGS acknowledgements. QUIC needs none: ngtcp2 measures
// the path itself and QuicStreams::path_rtt() reports its smallest sample.
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
    latest_ = sample;
    ++samples_;
  }
  bool known() const noexcept { return samples_ > 0; }
  /// The smallest sample: the path's delay without the queues a busy peer or link
  /// adds. The window policy uses it, so a queue that grows with the window never
  /// argues for a larger window. Zero while unknown.
  Duration min() const noexcept { return min_; }
  Duration latest() const noexcept { return latest_; }
  std::size_t samples() const noexcept { return samples_; }

 private:
  Duration min_{};
  Duration latest_{};
  std::size_t samples_ = 0;
};

}  // namespace sluice
