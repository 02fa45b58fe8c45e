#pragma once
/// @file
/// HTTP-date (RFC 9110 section 5.6.7): the dates of Date, Last-Modified,
/// If-Modified-Since, Retry-After and Expires.
///
/// What parse_http_date() accepts, in this order:
///  1. the three forms a recipient must accept, exactly as the grammar spells them
///     (case-sensitive names, single spaces, "GMT"):
///       IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
///       RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT"
///       asctime      "Sun Nov  6 08:49:37 1994"
///  2. failing those, the lenient cookie-date algorithm of RFC 6265 section 5.1.1
///     (as curl falls back to its lenient date parser), which reads what servers
///     send in practice: "Wed, 09-Jun-2021 10:18:14 GMT", lower-case names, one-digit
///     days, a missing weekday. It is refused when the text names a timezone other
///     than GMT or UTC (a "+0100" or "-0800" offset, "PST", "CET"), since an
///     HTTP-date is always UTC and reading such a time as UTC would be wrong.
/// A weekday is not checked against the date. Two-digit years (RFC 850) are read as
/// 1970-2069 (the cookie rule), not relative to the current year. Dates before 1601
/// or after 9999, and dates that do not exist (31 April, 29 February 2023, 24:00:00),
/// are refused; a leap second (:60) is refused.
/// Pure functions: any thread.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/export.h"

namespace sluice {

/// The instant an HTTP-date names (UTC), or nullopt when `text` is not one of the
/// accepted forms above.
SLUICE_API std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text);

/// `when` as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the form a sender
/// must generate. Times before 1601-01-01 or after 9999-12-31 23:59:59 are clamped
/// to those bounds, so the result always parses back.
SLUICE_API std::string format_http_date(std::chrono::sys_seconds when);

}  // namespace sluice
