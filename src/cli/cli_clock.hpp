#pragma once
// The command's one reading of the system's monotonic clock (the library's is
// core/time_source.cpp's SteadyClock, which the command, a user of the public API only,
// does not include). Whatever measures time in src/cli takes it from here or is given
// a clock (the progress display, so its tests pass a manual one).
// Any thread.

#include <chrono>

namespace sluice::cli {

using CliTimePoint = std::chrono::steady_clock::time_point;

inline CliTimePoint cli_now() noexcept { return std::chrono::steady_clock::now(); }

}  // namespace sluice::cli
