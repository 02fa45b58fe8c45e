#include "web/cookie_date.hpp"

#include <array>
#include <cctype>

namespace sluice {
namespace {

// RFC 6265 delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
bool is_delimiter(unsigned char c) {
  return c == 0x09 || (c >= 0x20 && c <= 0x2F) || (c >= 0x3B && c <= 0x40) ||
         (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads 1..max_digits digits at `pos` into `out`; the digit run must end there
// (end of token or a non-digit), as "1*2DIGIT ( non-digit *OCTET )" demands.
bool read_number(std::string_view token, std::size_t& pos, std::size_t min_digits,
                 std::size_t max_digits, unsigned& out) {
  std::size_t start = pos;
  unsigned value = 0;
  while (pos < token.size() && is_digit(token[pos]) && pos - start < max_digits) {
    value = value * 10 + static_cast<unsigned>(token[pos] - '0');
    ++pos;
  }
  const std::size_t digits = pos - start;
  if (digits < min_digits || (pos < token.size() && is_digit(token[pos]))) return false;
  out = value;
  return true;
}

struct Time {
  unsigned hour = 0, minute = 0, second = 0;
};

// hms-time = time-field ":" time-field ":" time-field, then anything not a digit.
std::optional<Time> match_time(std::string_view token) {
  Time time;
  std::size_t pos = 0;
  if (!read_number(token, pos, 1, 2, time.hour) || pos >= token.size() || token[pos] != ':') {
    return std::nullopt;
  }
  ++pos;
  if (!read_number(token, pos, 1, 2, time.minute) || pos >= token.size() || token[pos] != ':') {
    return std::nullopt;
  }
  ++pos;
  if (!read_number(token, pos, 1, 2, time.second)) return std::nullopt;
  return time;
}

std::optional<unsigned> match_digits(std::string_view token, std::size_t min_digits,
                                     std::size_t max_digits) {
  std::size_t pos = 0;
  unsigned value = 0;
  if (!read_number(token, pos, min_digits, max_digits, value)) return std::nullopt;
  return value;
}

std::optional<unsigned> match_month(std::string_view token) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  if (token.size() < 3) return std::nullopt;
  for (unsigned i = 0; i < kMonths.size(); ++i) {
    bool same = true;
    for (std::size_t k = 0; k < 3; ++k) {
      if (std::tolower(static_cast<unsigned char>(token[k])) != kMonths[i][k]) same = false;
    }
    if (same) return i + 1;
  }
  return std::nullopt;
}

bool is_leap(std::int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr std::array<unsigned, 12> kDays = {31, 28, 31, 30, 31, 30,
                                                     31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

}  // namespace

std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept {
  // Howard Hinnant's algorithm: counts from 0000-03-01 so that leap days end a year.
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

std::optional<std::int64_t> parse_cookie_date(std::string_view text) {
  std::optional<Time> time;
  std::optional<unsigned> day, month, year;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_delimiter(static_cast<unsigned char>(text[pos]))) ++pos;
    std::size_t end = pos;
    while (end < text.size() && !is_delimiter(static_cast<unsigned char>(text[end]))) ++end;
    const std::string_view token = text.substr(pos, end - pos);
    pos = end;
    if (token.empty()) continue;
    // The order of the checks is the RFC's: the first kind a token fits takes it.
    if (!time && (time = match_time(token))) continue;
    if (!day && (day = match_digits(token, 1, 2))) continue;
    if (!month && (month = match_month(token))) continue;
    if (!year) year = match_digits(token, 2, 4);
  }
  if (!time || !day || !month || !year) return std::nullopt;
  std::int64_t full_year = *year;
  if (full_year >= 70 && full_year <= 99) full_year += 1900;
  if (full_year <= 69) full_year += 2000;
  if (full_year < 1601 || *day < 1 || *day > days_in_month(full_year, *month) || time->hour > 23 ||
      time->minute > 59 || time->second > 59) {
    return std::nullopt;
  }
  return days_from_civil(full_year, *month, *day) * 86400 + time->hour * 3600 + time->minute * 60 +
         time->second;
}

}  // namespace sluice
