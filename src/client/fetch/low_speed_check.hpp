#pragma once
// LowSpeedCheck: curl's low-speed rule (--speed-limit, --speed-time;
// ClientOptions::low_speed) as a pure function of samples, so the rule is tested
// without a server or a clock. Its Transfer samples it once a second on the HTTP
// thread's clock with the bytes moved so far (response body received, before
// decoding, and request body sent). The rate is the average over the last five
// seconds of samples (curl keeps the same window). From the start, and from each
// moment the rate falls under the limit, the transfer has the limit's time to bring
// it over; a stalled one fails the limit's time after it started.
// Ownership: a value owned by its Transfer; HTTP thread only.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/time_source.hpp"
#include "sluice/client_options.hpp"

namespace sluice {

class LowSpeedCheck {
 public:
  /// Counting starts at `start` with nothing moved.
  LowSpeedCheck(LowSpeedLimit limit, TimePoint start);

  /// One sample: `moved` is every byte moved so far. `held`: the reader holds the body
  /// (or the Client's budget does), so the slowness is ours, not the transfer's:
  /// the count starts again from here. True when the rate has stayed under the
  /// limit for the limit's time.
  bool too_slow(TimePoint now, std::uint64_t moved, bool held);
  /// The rate of the last sample, bytes a second (for the error's message).
  double last_rate() const noexcept { return last_rate_; }

 private:
  struct Sample {
    TimePoint at;
    std::uint64_t moved = 0;
  };
  // Six samples a second apart span five seconds.
  static constexpr std::size_t kWindow = 6;

  void restart(TimePoint now, std::uint64_t moved);
  const Sample& oldest() const noexcept;

  LowSpeedLimit limit_;
  std::array<Sample, kWindow> samples_{};
  std::size_t count_ = 0;  // samples held, at most kWindow
  std::size_t next_ = 0;   // where the next sample goes
  std::optional<TimePoint> slow_since_;
  double last_rate_ = 0;
};

}  // namespace sluice
