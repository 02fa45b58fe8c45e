#pragma once
// Resident memory of this process over a run, and the one figure a run is judged by.
// Plain functions and values; the main thread samples.

#include <optional>
#include <vector>

namespace sluice::soak {

struct RssSample {
  double seconds = 0;  ///< since the traffic started
  double mib = 0;
};

/// VmRSS from /proc/self/status, in MiB; std::nullopt when it cannot be read.
std::optional<double> read_rss_mib();
/// The bytes malloc has handed out and not had back (glibc's mallinfo2 over every
/// arena), in MiB: what a leak grows, where RSS also holds what the arenas keep
/// after a free. std::nullopt under a sanitizer, whose allocator glibc does not see.
std::optional<double> read_heap_in_use_mib();

/// The run split in thirds by sample count. The first third is warm-up: pools fill,
/// malloc arenas reach their working size, ASan's quarantine fills. Growth compares
/// averages, so one sample taken while eight workers each hold a 4 MiB upload does
/// not decide the verdict, while a steady leak of a few hundred KiB per minute still
/// shows as the distance between the middle and the last third.
struct RssJudgement {
  double first_mib = 0;
  double last_mib = 0;
  double peak_mib = 0;
  double middle_third_mib = 0;   ///< average
  double last_third_mib = 0;     ///< average
  double growth_mib = 0;         ///< last_third_mib - middle_third_mib
  double slope_mib_per_min = 0;  ///< least squares over the last two thirds
  bool judged = false;           ///< false with fewer than 6 samples
};

RssJudgement judge_rss(const std::vector<RssSample>& samples);

}  // namespace sluice::soak
