#include "bench/release_rule_comparison.hpp"

#include <cstdint>

#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "core/memory_rules.hpp"

namespace sluice::bench {

std::optional<ReleaseRuleReports> compare_release_rule(
    const std::string& prefix, const BenchOptions& options,
    const std::function<Result<ChildReport>(std::size_t threshold, const char* label)>&
        run_variant) {
  Result<ChildReport> on = run_variant(kDefaultReleaseThreshold, "release rule on");
  if (!on) {
    print_note(prefix + " (release rule on) failed: " + on.error().message());
    return std::nullopt;
  }
  Result<ChildReport> off = run_variant(SIZE_MAX, "release rule off");
  if (!off) {
    print_note(prefix + " (release rule off) failed: " + off.error().message());
    return std::nullopt;
  }
  const double on_mib = to_mib(on->peak_rss_bytes);
  const double off_mib = to_mib(off->peak_rss_bytes);
  print_figure(prefix + "_count", static_cast<double>(options.count), 0);
  print_figure(prefix + "_size_mib", to_mib(options.size));
  print_figure(prefix + "_peak_rss_mib", on_mib, 1);
  print_figure(prefix + "_peak_rss_mib_rule_off", off_mib, 1);
  print_figure(prefix + "_ratio", on_mib > 0 ? off_mib / on_mib : 0, 2);
  print_figure(prefix + "_seconds", on->figure("seconds"), 2);
  print_figure(prefix + "_seconds_rule_off", off->figure("seconds"), 2);
  return ReleaseRuleReports{std::move(*on), std::move(*off)};
}

}  // namespace sluice::bench
