// Fuzz target: parse_content_range and parse_decimal (src/download/download_ranges),
// which read a server's Content-Range when a download asked for a range.
// Input: the header value.
// Invariants checked: "bytes F-L/T" parses only with F <= L < T, "bytes */T" only
// with a total, and each number is exactly what its digits say (parse_decimal
// agrees with a plain digit loop that stops at overflow).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "download/download_ranges.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::fuzz::check;

std::optional<std::uint64_t> oracle_decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  check(sluice::parse_decimal(value) == oracle_decimal(value),
        "parse_decimal reads exactly a whole unsigned decimal");
  const auto range = sluice::parse_content_range(value);
  if (!range) return 0;
  check(range->first.has_value() == range->last.has_value(), "first and last come together");
  if (!range->first) {
    check(range->total.has_value(), "\"bytes */T\" has a total");
    return 0;
  }
  check(*range->first <= *range->last, "first <= last");
  if (range->total) check(*range->last < *range->total, "last < total");
  return 0;
}
