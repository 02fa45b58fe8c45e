#include "download/download_ranges.hpp"

#include <algorithm>

namespace sluice {

std::vector<RangeSpec> plan_ranges(std::uint64_t from, std::uint64_t total, unsigned count,
                                   std::uint64_t min_size) {
  const std::uint64_t length = total > from ? total - from : 0;
  std::uint64_t pieces = count == 0 ? 1 : count;
  if (min_size > 0 && length / min_size < pieces) pieces = length / min_size;
  if (pieces == 0) pieces = 1;
  const std::uint64_t base = length / pieces;
  const std::uint64_t extra = length % pieces;
  std::vector<RangeSpec> ranges;
  std::uint64_t start = from;
  for (std::uint64_t i = 0; i < pieces; ++i) {
    const std::uint64_t size = base + (i < extra ? 1 : 0);
    ranges.push_back(RangeSpec{start, start + size, 0});
    start += size;
  }
  return ranges;
}

std::vector<RangeSpec> split_remaining(std::vector<RangeSpec> plan, unsigned count,
                                       std::uint64_t min_size) {
  const auto left = [](const RangeSpec& range) { return *range.end - range.next(); };
  for (;;) {
    std::size_t incomplete = 0;
    std::optional<std::size_t> largest;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (plan[i].complete()) continue;
      ++incomplete;
      if (plan[i].end && (!largest || left(plan[i]) > left(plan[*largest]))) largest = i;
    }
    if (incomplete >= count || !largest) return plan;
    const auto middle = split_point(plan[*largest].next(), left(plan[*largest]), min_size);
    if (!middle) return plan;
    const RangeSpec second{*middle, plan[*largest].end, 0};
    plan[*largest].end = *middle;
    plan.insert(plan.begin() + static_cast<std::ptrdiff_t>(*largest) + 1, second);
  }
}

std::optional<std::uint64_t> split_point(std::uint64_t from, std::uint64_t rest,
                                         std::uint64_t min_size) {
  const std::uint64_t half_at_least = std::max<std::uint64_t>(min_size, 1);
  // rest / 2 >= min, without the overflow of 2 * min for a huge min_range_size.
  if (rest / 2 < half_at_least) return std::nullopt;
  return from + rest - rest / 2;
}

std::vector<RangeSpec> merge_complete_ranges(std::vector<RangeSpec> ranges) {
  std::vector<RangeSpec> merged;
  merged.reserve(ranges.size());
  for (RangeSpec& range : ranges) {
    if (!merged.empty() && merged.back().complete() && *merged.back().end == range.start) {
      RangeSpec& before = merged.back();
      before.done += range.done;
      before.end = range.end;
      continue;
    }
    merged.push_back(range);
  }
  return merged;
}

std::string range_header_value(const RangeSpec& range) {
  std::string value = "bytes=" + std::to_string(range.next()) + "-";
  if (range.end) value += std::to_string(*range.end - 1);
  return value;
}

}  // namespace sluice
