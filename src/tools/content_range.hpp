#pragma once
// The Content-Range header of a 206 or 416 response (RFC 9110 section 14.4), and what
// resuming a body from where it stopped needs: the validator of If-Range, whether a
// 200 is the same resource, the digits of a length.
// Part of src/tools: what the command and the downloader share beyond the public API
// (the standard library and include/sluice only, since the command links it beside
// libsluice.so, whose internals it cannot see).
// Pure functions and values: any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/headers.hpp"

namespace sluice {

/// A Content-Range value: "bytes F-L/T", "bytes F-L/*" or "bytes */T" (416).
struct ContentRange {
  std::optional<std::uint64_t> first;  ///< absent for "*/T"
  std::optional<std::uint64_t> last;   ///< inclusive
  std::optional<std::uint64_t> total;  ///< absent for "/*"
};

/// The parsed value, or nullopt for anything else (another unit, F > L, L >= T, ...).
std::optional<ContentRange> parse_content_range(std::string_view value);

/// The validator a resumed request names in If-Range, from the response whose first
/// bytes were kept: its strong ETag, else its Last-Modified, else "" (none: a weak
/// ETag may not be used with If-Range, RFC 9110 section 13.1.5).
std::string resume_validator(const Headers& response_headers);

/// Whether a 200 that answered a resumed request (Range, with If-Range naming
/// `validator`) is the resource whose first bytes were already kept, so that they
/// may be read past: its ETag or Last-Modified equals `validator`; with no validator
/// (empty), its Content-Length equals `size`, the best evidence there is then.
bool is_same_resource(const Headers& response_headers, std::string_view validator,
                      std::optional<std::uint64_t> size);

/// A whole unsigned decimal number ("0", "1048576"), or nullopt (empty, signs,
/// spaces, other characters, overflow).
std::optional<std::uint64_t> parse_decimal(std::string_view text);

}  // namespace sluice
