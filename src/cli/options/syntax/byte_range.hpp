#pragma once
// -r/--range in curl's syntax: "0-499", "500-", "-500" (the last 500 bytes), or
// several of them joined by commas ("0-1,5-6"), which the server may answer with a
// multipart/byteranges body. A bare number "500" means "500-", as curl reads it.
// Pure functions: any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/error.hpp"

namespace sluice::cli {

/// One range of a -r value. `first` absent: the last `last` bytes ("-500");
/// `last` absent: from `first` to the end ("500-"). Inclusive, as in HTTP.
struct ByteRange {
  std::optional<std::uint64_t> first;
  std::optional<std::uint64_t> last;

  bool operator==(const ByteRange&) const = default;
};

/// A checked -r value.
struct ByteRanges {
  std::vector<ByteRange> ranges;  ///< in the order given
  std::string text;               ///< what goes after "bytes=" in the Range field
};

/// Parses `text` (without "bytes="). Errors (category usage) name `option` and say
/// what is wrong: an empty part, a character that is not a digit, '-' or ',', a
/// first byte after the last, "-0", a number too large.
Result<ByteRanges> parse_byte_ranges(std::string_view option, std::string_view text);

}  // namespace sluice::cli
