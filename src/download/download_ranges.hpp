#pragma once
// Byte ranges of a download: planning a file into ranges, the Range header a range
// asks with, and the Content-Range a server answers with. Plain values and pure
// functions: any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/content_range.hpp"  // parse_decimal too

namespace sluice {

/// One range of the file: bytes [start, end), `end` unknown while the file's size
/// is (then the range runs to the end of the body). `done` counts the bytes from
/// `start` whose writes completed, contiguously.
struct RangeSpec {
  std::uint64_t start = 0;
  std::optional<std::uint64_t> end;
  std::uint64_t done = 0;

  std::uint64_t next() const noexcept { return start + done; }
  bool complete() const noexcept { return end && start + done >= *end; }
  bool operator==(const RangeSpec&) const = default;
};

/// [from, total) cut into at most `count` ranges of at least `min_size` bytes each
/// (one range when it is smaller), the remainder spread over the first ones.
std::vector<RangeSpec> plan_ranges(std::uint64_t from, std::uint64_t total, unsigned count,
                                   std::uint64_t min_size);

/// A resumed plan with more incomplete ranges: while fewer than `count` ranges are
/// incomplete, the one with the most bytes left gives its second half to a new range
/// placed right after it (halves of at least `min_size`; ranges of unknown end are
/// never split). Earlier ranges keep their positions, so a response already asked
/// for the first incomplete range still belongs to it (it now stops sooner).
std::vector<RangeSpec> split_remaining(std::vector<RangeSpec> plan, unsigned count,
                                       std::uint64_t min_size);

/// Where to cut `rest` bytes that start at `from` into two halves of at least
/// `min_size` (at least 1) bytes each: the second half's start, or nullopt when the
/// rest is too short. The one rule for splitting a resumed plan and for stealing.
std::optional<std::uint64_t> split_point(std::uint64_t from, std::uint64_t rest,
                                         std::uint64_t min_size);

/// Ranges in file order with each complete range folded into the range after it
/// when they meet ({a, b, b-a} then {b, c, d} is {a, c, (b-a)+d}: done still counts
/// contiguous bytes from the start). Steals only ever add ranges; this keeps the
/// control file as short as the work left, within the size its reader accepts.
std::vector<RangeSpec> merge_complete_ranges(std::vector<RangeSpec> ranges);

/// The Range header value that asks for the rest of `range`: "bytes=N-" or "bytes=N-M".
std::string range_header_value(const RangeSpec& range);

}  // namespace sluice
