#pragma once
// RateLimiter: a token bucket for readers of response bodies (curl's --limit-rate).
// sluice::download() shares one among the ranges of a download so that together
// they read at most `bytes_per_second`; the `sluice` command paces a single fetch
// with one. A reader that runs out waits; while it waits the staging buffer fills
// and the transport holds the rest back (backpressure), so the limit costs no
// memory. A limiter may also take from a parent, a rate several downloads share
// (sluice::SharedRateLimit): then each grant fits both.
// Thread-safe: any reader thread; guarded by mu_.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace sluice {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  /// `parent`, when set, must outlive this limiter; every grant is taken from it too.
  explicit RateLimiter(std::uint64_t bytes_per_second, RateLimiter* parent = nullptr);

  /// Takes up to `want` bytes' worth of tokens (at most a tenth of a second's worth,
  /// so readers share the rate) and returns how many. When the bucket is in debt
  /// the caller must first wait until the returned `ready_at`.
  struct Grant {
    std::size_t bytes = 0;
    Clock::time_point ready_at;
  };
  Grant take(std::size_t want);
  /// Gives back tokens a read did not use (to the parent too).
  void refund(std::size_t unused);

 private:
  void refill(Clock::time_point now);
  Grant take_own(std::size_t want);
  void refund_own(std::size_t unused);

  const double rate_;   // bytes per second
  const double burst_;  // most tokens the bucket holds, and most one take() gets
  RateLimiter* const parent_;
  std::mutex mu_;
  double tokens_ = 0;       // guarded by mu_; negative: debt being slept off
  Clock::time_point last_;  // guarded by mu_
};

}  // namespace sluice
