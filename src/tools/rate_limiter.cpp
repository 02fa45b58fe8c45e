// RateLimiter (see rate_limiter.hpp).
// Thread-safety: any thread; guarded by mu_.

#include "tools/rate_limiter.hpp"

#include <algorithm>

namespace sluice {

RateLimiter::RateLimiter(std::uint64_t bytes_per_second, RateLimiter* parent)
    : rate_(static_cast<double>(bytes_per_second)),
      burst_(std::max(1.0, static_cast<double>(bytes_per_second) / 10.0)),
      parent_(parent),
      last_(Clock::now()) {}

void RateLimiter::refill(Clock::time_point now) {
  const std::chrono::duration<double> elapsed = now - last_;
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed.count() * rate_);
}

// Debt model: a take may drive the bucket below zero; the taker sleeps the debt off
// before reading, so the bytes read never run ahead of the rate by more than one
// burst, and several readers queue behind each other's debt.
// With a parent: this bucket's grant, then the parent's for as much; the smaller
// stands (this bucket gets back the difference), ready when both buckets are.
RateLimiter::Grant RateLimiter::take(std::size_t want) {
  Grant grant = take_own(want);
  if (parent_ == nullptr) return grant;
  const Grant shared = parent_->take(grant.bytes);
  if (shared.bytes < grant.bytes) refund_own(grant.bytes - shared.bytes);
  grant.bytes = shared.bytes;
  grant.ready_at = std::max(grant.ready_at, shared.ready_at);
  return grant;
}

RateLimiter::Grant RateLimiter::take_own(std::size_t want) {
  std::lock_guard lock(mu_);
  const auto now = Clock::now();
  refill(now);
  const double bytes = std::min(static_cast<double>(want), burst_);
  tokens_ -= bytes;
  Grant grant;
  grant.bytes = static_cast<std::size_t>(bytes);
  grant.ready_at = now;
  if (tokens_ < 0) {
    grant.ready_at += std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(-tokens_ / rate_));
  }
  return grant;
}

void RateLimiter::refund(std::size_t unused) {
  refund_own(unused);
  if (parent_ != nullptr) parent_->refund(unused);
}

void RateLimiter::refund_own(std::size_t unused) {
  std::lock_guard lock(mu_);
  tokens_ += static_cast<double>(unused);
}

}  // namespace sluice
