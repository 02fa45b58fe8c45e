// SharedRateLimit (sluice/download.hpp): one token bucket that every download given it
// takes from, besides its own.
// Thread-safety: any thread; the bucket locks.

#include "download/shared_rate_limit.hpp"

#include <algorithm>
#include <memory>

namespace sluice {

SharedRateLimit::SharedRateLimit(std::uint64_t bytes_per_second)
    : bytes_per_second_(std::max<std::uint64_t>(bytes_per_second, 1)),
      limiter_(std::make_unique<RateLimiter>(bytes_per_second_)) {}

SharedRateLimit::~SharedRateLimit() = default;

}  // namespace sluice
