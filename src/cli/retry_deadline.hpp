#pragma once
// curl's --retry-max-time: retries happen only within that time from the start of
// the first attempt, and a wait never runs past its end. Pure; any thread.

#include <chrono>
#include <optional>

namespace sluice::cli {

/// The wait before another attempt, given the policy's `wait`, the time `elapsed`
/// since the first attempt began and `max_time` (0: no limit): `wait` itself, or
/// what is left of max_time when that is shorter; nothing once max_time has passed.
std::optional<std::chrono::milliseconds> wait_within_retry_time(
    std::chrono::milliseconds wait, std::chrono::milliseconds elapsed,
    std::chrono::milliseconds max_time) noexcept;

}  // namespace sluice::cli
