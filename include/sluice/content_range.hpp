#pragma once
/// @file
/// The Content-Range header of a 206 or 416 response (RFC 9110 section 14.4), for
/// code that resumes a body from where it stopped.
/// Pure functions and values: any thread.

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice {

/// A Content-Range value: "bytes F-L/T", "bytes F-L/*" or "bytes */T" (416).
struct ContentRange {
  std::optional<std::uint64_t> first;  ///< absent for "*/T"
  std::optional<std::uint64_t> last;   ///< inclusive
  std::optional<std::uint64_t> total;  ///< absent for "/*"
};

/// The parsed value, or nullopt for anything else (another unit, F > L, L >= T, ...).
std::optional<ContentRange> parse_content_range(std::string_view value);

}  // namespace sluice
