#pragma once
// Runs one variant of a benchmark in a fork()ed child and brings back its peak
// resident memory (VmHWM) and figures through a pipe. Peaks of two variants are only
// comparable when each has a process of its own: freed memory the allocator keeps,
// and a high-water mark that never goes down, would carry one variant's peak into
// the next.
// Main thread only, and only while the process has no other thread (fork() copies
// just the calling thread; a lock held by another would stay locked in the child).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/error.hpp"

namespace sluice::bench {

/// Named figures a variant measured itself (a duration, a baseline).
using ChildFigures = std::vector<std::pair<std::string, double>>;

struct ChildReport {
  std::uint64_t peak_rss_bytes = 0;  ///< the child's VmHWM when the variant returned
  ChildFigures figures;

  /// The figure called `name`, or 0 when the variant did not report it.
  double figure(const std::string& name) const;
};

/// Forks; the child resets its peak to its current resident size (so memory the
/// parent had touched is counted once, as resident, not as an earlier peak), runs
/// `variant`, and reports. Fails when the fork or the pipe fails, when the child
/// dies, or with the variant's own error message.
Result<ChildReport> run_in_child(const std::function<Result<ChildFigures>()>& variant);

/// Resets this process's VmHWM to its current VmRSS (Linux 4.0+: writes 5 to
/// /proc/self/clear_refs). Returns false where the kernel refuses; the peak then
/// also covers what came before.
bool reset_peak_rss();

}  // namespace sluice::bench
