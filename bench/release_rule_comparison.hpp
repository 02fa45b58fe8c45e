#pragma once
// The release rule's benchmark (upload-burst) runs the same burst twice,
// each in a child process of its own: with the rule on (the default threshold) and
// off (SIZE_MAX), and print the same figures under their own prefix.
// Main thread only (see child_peak.hpp: no other thread may exist when it forks).

#include <functional>
#include <optional>
#include <string>

#include "bench/bench_options.hpp"
#include "bench/child_peak.hpp"

namespace sluice::bench {

struct ReleaseRuleReports {
  ChildReport on;
  ChildReport off;
};

/// Runs `run_variant(threshold, label)` with the rule on, then off, and prints
/// PREFIX_count, PREFIX_size_mib, PREFIX_peak_rss_mib, PREFIX_peak_rss_mib_rule_off,
/// PREFIX_ratio (off / on), PREFIX_seconds and PREFIX_seconds_rule_off (each
/// variant's "seconds" figure). Returns nullopt, after a note saying which variant
/// failed and why, when one did.
std::optional<ReleaseRuleReports> compare_release_rule(
    const std::string& prefix, const BenchOptions& options,
    const std::function<Result<ChildReport>(std::size_t threshold, const char* label)>&
        run_variant);

}  // namespace sluice::bench
