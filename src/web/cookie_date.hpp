#pragma once
// The cookie date algorithm of RFC 6265 section 5.1.1 (kept by 6265bis): lenient
// enough for the three HTTP-date forms of RFC 9110 (IMF-fixdate, RFC 850, asctime)
// and for the variants servers send in Expires ("Wed, 09-Jun-2021 10:18:14 GMT",
// two-digit years, missing weekday).
// Ownership: free functions, pure; any thread.

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice {

/// Seconds since the Unix epoch (UTC) of a cookie date, or nullopt when the text
/// lacks a time, day, month or year, or names a date that does not exist (a 31st
/// of April, 25:00:00, a year before 1601).
std::optional<std::int64_t> parse_cookie_date(std::string_view text);

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept;

}  // namespace sluice
