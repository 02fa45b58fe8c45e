#pragma once
// What the download layer sees of a SharedRateLimit (sluice/download.hpp): the token
// bucket inside, which each download's own limiter takes from as its parent.
// Ownership: the limiter belongs to its SharedRateLimit; any thread (RateLimiter
// locks).

#include "sluice/download.hpp"
#include "tools/rate_limiter.hpp"

namespace sluice {

struct SharedRateLimitAccess {
  static RateLimiter& limiter(SharedRateLimit& shared) { return *shared.limiter_; }
};

}  // namespace sluice
