#include "cli/retry_deadline.hpp"

#include <algorithm>

namespace sluice::cli {

std::optional<std::chrono::milliseconds> wait_within_retry_time(
    std::chrono::milliseconds wait, std::chrono::milliseconds elapsed,
    std::chrono::milliseconds max_time) noexcept {
  if (max_time.count() <= 0) return wait;
  if (elapsed >= max_time) return std::nullopt;
  return std::min(wait, max_time - elapsed);
}

}  // namespace sluice::cli
