#pragma once
// Set-Cookie field values into their parts (RFC 6265bis section 5.6), before the jar
// decides whether to store them: no request, no clock, no policy here.
// Ownership: free function, pure; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/cookies.hpp"

namespace sluice {

/// Longest name plus value kept (6265bis: 4096 bytes), and longest attribute value.
constexpr std::size_t kMaxCookieNameValueBytes = 4096;
constexpr std::size_t kMaxCookieAttributeBytes = 1024;

struct ParsedSetCookie {
  std::string name;
  std::string value;
  std::optional<std::int64_t> expires;  ///< Expires, seconds since the epoch
  std::optional<std::int64_t> max_age;  ///< Max-Age in seconds (may be <= 0)
  std::optional<std::string> domain;    ///< lower-case, leading dot dropped, not empty
  std::optional<std::string> path;      ///< only a value starting with '/'
  bool secure = false;
  bool http_only = false;
  SameSite same_site = SameSite::unspecified;
};

/// The parts of one Set-Cookie value, or nullopt when the whole field is to be
/// ignored: a control character (other than TAB) anywhere, a TAB in the name or
/// value (the cookie file could not hold it), an empty name and value, or a name
/// and value longer than kMaxCookieNameValueBytes. Unknown or malformed attributes
/// are ignored one by one; of repeated ones the last counts.
std::optional<ParsedSetCookie> parse_set_cookie(std::string_view field);

}  // namespace sluice
